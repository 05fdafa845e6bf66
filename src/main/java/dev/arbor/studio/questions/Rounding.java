package dev.arbor.studio.questions;

/** The one rounding of figures the studio answers with (certainties, rates, milliseconds). */
public final class Rounding {
    private Rounding() {}

    /** The value rounded half up to a number of decimal places. */
    public static double round(double value, int places) {
        double scale = Math.pow(10, places);
        return Math.round(value * scale) / scale;
    }
}
