package dev.arbor.studio.history;

import dev.arbor.studio.questions.Answer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decisions as CSV for spreadsheets: one row per answer (a decision with three questions gives three rows), so
 * that the columns are the same for every decision. Text that a spreadsheet would run as a formula is defused.
 */
public final class Export {
    public static final String CSV_HEADER =
            "decision_id,created_at,status,template,version,model,decision_act,question,"
                    + "type,answer,certainty,act,origin\r\n";

    private Export() {}

    public static String csv(StoredDecision decision) {
        Decided decided = decision.decided();
        List<String> common = List.of(
                decision.id(),
                Long.toString(decided.createdAt()),
                decision.status().wire(),
                decided.template().map(Decided.Template::id).orElse(""),
                decided.template().map(t -> Integer.toString(t.version())).orElse(""),
                decided.model().orElse(""),
                decided.answered().map(a -> Boolean.toString(a.act())).orElse(""));
        var out = new StringBuilder();
        Map<String, Answer> answers =
                decided.answered().map(Decided.Answered::answers).orElse(Map.of());
        if (answers.isEmpty()) {
            row(out, common, List.of("", "", "", "", "", ""));
            return out.toString();
        }
        answers.forEach((key, answer) -> row(
                out,
                common,
                List.of(
                        key,
                        answer.type().wire(),
                        answer.line(),
                        Double.toString(answer.gate().certainty()),
                        Boolean.toString(answer.gate().act()),
                        answer.gate().origin().wire())));
        return out.toString();
    }

    private static void row(StringBuilder out, List<String> common, List<String> answer) {
        var cells = new ArrayList<>(common);
        cells.addAll(answer);
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(cell(cells.get(i)));
        }
        out.append("\r\n");
    }

    /** RFC 4180 quoting; a leading = + - @ gets a ' so that no spreadsheet evaluates it. */
    static String cell(String value) {
        String text =
                !value.isEmpty() && "=+-@".indexOf(value.charAt(0)) >= 0 && !isNumber(value) ? "'" + value : value;
        if (text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r")) {
            return "\"" + text.replace("\"", "\"\"") + "\"";
        }
        return text;
    }

    private static boolean isNumber(String value) {
        try {
            Double.parseDouble(value);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
