package dev.arbor.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.platform.json.Json;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedactionTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"api_key\": \"sk-live-1\"}|{\"api_key\":\"[redacted]\"}",
                "{\"auth\": {\"client_secret\": \"c\", \"client_id\": \"i\"}}|{\"auth\":{\"client_secret\":\"[redacted]\",\"client_id\":\"i\"}}",
                "{\"kubeconfig\": \"apiVersion: v1\"}|{\"kubeconfig\":\"[redacted]\"}",
                "{\"headers\": [{\"authorization\": \"Bearer x\"}]}|{\"headers\":[{\"authorization\":\"[redacted]\"}]}",
                "{\"note\": \"arb_0123456789abcdefghijklmnop\"}|{\"note\":\"[redacted]\"}",
                "{\"key\": \"sk-arb-abc\"}|{\"key\":\"[redacted]\"}",
                "{\"signing\": \"whsec_abc\"}|{\"signing\":\"[redacted]\"}",
                "{\"webhook_url\": \"https://a.example/events/hooks/hk_1?x=1\"}|{\"webhook_url\":\"https://a.example/events/hooks/***?x=1\"}",
            })
    void aSecretIsMasked(String state, String redacted) {
        assertThat(Json.writeString(Redaction.redact(Json.read(state)))).isEqualTo(redacted);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"token_id\": \"tok_1\", \"hint\": \"arb_abcd\"}",
                "{\"has_secret\": true, \"secret\": null}",
                "{\"max_tokens\": 12, \"name\": \"a token\"}",
            })
    void whatOnlyNamesOrCountsASecretIsKept(String state) {
        assertThat(Redaction.redact(Json.read(state))).isEqualTo(Json.read(state));
    }
}
