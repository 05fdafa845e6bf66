package dev.arbor.platform.db;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/** Nullable number columns read from a row: empty where the column is null (JDBC reads a null number as 0). */
public final class Columns {
    private Columns() {}

    /** A nullable whole-number column, such as a time that has not come yet. */
    public static Optional<Long> optionalLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? Optional.empty() : Optional.of(value);
    }

    /** A nullable int column, such as a version that may not be written. */
    public static Optional<Integer> optionalInt(ResultSet rs, String column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? Optional.empty() : Optional.of(value);
    }
}
