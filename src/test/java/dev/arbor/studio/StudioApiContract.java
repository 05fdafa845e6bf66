package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;

/** What the studio's API contracts share: the templates they decide with and an ad hoc decision asking every question type. */
abstract class StudioApiContract extends ServerContract {
    static final String D = "/v1/studio/decisions";
    static final String ALL_TYPES = """
            {"team": {"type": "choice", "criteria": ["billing", "tech", "sales"]},
             "urgent": {"type": "noul"},
             "level": {"type": "score", "criteria": ["low", "mid", "high"]},
             "tags": {"type": "multi", "criteria": ["refund", "angry", "legal"]},
             "order": {"type": "rank", "criteria": ["a", "b", "c"]},
             "days": {"type": "number", "criteria": [1, 2, 5, 10], "unit": "days"}}""";

    @BeforeAll
    void createTemplates() {
        assertThat(http.post("/v1/studio/templates", """
                {"id": "triage", "model": "hash-decider",
                 "variables": {"message": {"type": "string", "max_length": 200},
                               "tier": {"type": "string", "enum": ["free", "pro"], "default": "free"},
                               "email": {"type": "string", "sensitive": true, "required": false},
                               "n": {"type": "integer", "minimum": 0, "required": false}},
                 "state": "Plan: {{tier}}\\nOpen invoices: {{n}}\\nFrom: {{email}}\\n\\n{{message}}",
                 "questions": {"team": {"type": "choice", "instructions": "Team for a {{tier}} customer?",
                                        "criteria": ["billing", "tech"]},
                               "urgency": {"type": "score", "criteria": ["low", "high"]},
                               "churn": {"type": "noul"},
                               "eta": {"type": "number", "criteria": [1, 3]}},
                 "settings": {"temperature": 1.3, "questions": {"churn": {"act_threshold": 0.5}}},
                 "extensions": {"questions": true, "max_questions": 1, "options": ["team", "eta"],
                                "skip": ["urgency"]}}""").status()).isEqualTo(201);
        assertThat(http.post("/v1/studio/templates", """
                {"id": "plain", "model": "hash-decider",
                 "questions": {"ok": {"type": "noul"}, "kind": {"type": "choice", "criteria": ["a", "b"]}},
                 "extensions": {"questions": false}}""").status()).isEqualTo(201);
    }

    /** How many decisions the history's first page lists for {@code query}. */
    int listed(String query) {
        return http.get(D + "?" + query).json().path("data").size();
    }

    /** Each problem (or warning) of an answer's list as {@code code@param}, in order. */
    static List<String> problems(JsonNode details) {
        var problems = new ArrayList<String>();
        details.forEach(d ->
                problems.add(d.path("code").asText() + "@" + d.path("param").asText()));
        return problems;
    }

    static String adHoc(String state) {
        return "{\"model\": \"hash-decider\", \"state\": \"" + state + "\", \"questions\": " + ALL_TYPES + "}";
    }
}
