package dev.arbor.studio.history;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

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
        JsonNode body = decision.body();
        String template = body.path("template").path("id").asText("");
        String version = body.path("template").has("version")
                ? body.path("template").path("version").asText()
                : "";
        List<String> common = List.of(
                decision.id(),
                body.path("created_at").asText(),
                decision.status().wire(),
                template,
                version,
                body.path("model").asText(""),
                body.path("act").isBoolean() ? body.path("act").asText() : "");
        var out = new StringBuilder();
        JsonNode answers = body.path("answers");
        if (!answers.isObject() || answers.isEmpty()) {
            row(out, common, List.of("", "", "", "", "", ""));
            return out.toString();
        }
        answers.properties().forEach(e -> {
            JsonNode answer = e.getValue();
            JsonNode chosen = answer.path("decision");
            String text = chosen.asText();
            if (chosen.isArray()) {
                var items = new ArrayList<String>();
                chosen.forEach(item -> items.add(item.asText()));
                text = String.join(";", items);
            }
            row(
                    out,
                    common,
                    List.of(
                            e.getKey(),
                            answer.path("type").asText(),
                            text,
                            answer.path("certainty").asText(),
                            answer.path("act").asText(),
                            answer.path("origin").asText()));
        });
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
