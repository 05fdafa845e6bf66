package dev.arbor.studio.questions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.platform.json.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AnswerCodecTest {
    @ParameterizedTest
    @ValueSource(
            strings = {
                // a fitted head's answer to a question whose options came from a variable
                "{\"type\":\"choice\",\"choice\":\"b\",\"probabilities\":{\"a\":0.25,\"b\":0.75},\"confidence\":0.5,"
                        + "\"decision\":\"b\",\"top_probability\":0.75,\"certainty\":0.75,\"act\":false,"
                        + "\"origin\":\"template\",\"dynamic_options\":true,\"method\":\"fitted_head\","
                        + "\"head\":\"head_1\"}",
                // values of a number question that are not whole, without a unit
                "{\"type\":\"number\",\"estimate\":1.9,\"most_likely\":2.5,\"range\":[0.5,2.5],"
                        + "\"probabilities\":{\"0.5\":0.2,\"2.5\":0.8},\"confidence\":0.6,\"decision\":2.5,"
                        + "\"top_probability\":0.8,\"certainty\":0.8,\"act\":false,\"origin\":\"extra\"}",
                // a multi answer that selects nothing
                "{\"type\":\"multi\",\"selected\":[],\"probabilities\":{\"x\":0.1},\"threshold\":0.5,\"decision\":[],"
                        + "\"top_probability\":0.9,\"certainty\":0.9,\"act\":true,\"origin\":\"adhoc\"}"
            })
    void anAnswerReadsBackAsItWasWritten(String json) {
        assertThat(Json.writeString(AnswerCodec.write(AnswerCodec.read(Json.read(json)))))
                .isEqualTo(json);
    }

    @Test
    void aFittedAnswerNamesItsHead() {
        Answer answer = AnswerCodec.read(Json.read("{\"type\":\"noul\",\"noul\":0.7,\"probabilities\":{\"false\":0.3,"
                + "\"true\":0.7},\"decision\":\"yes\",\"top_probability\":0.7,\"certainty\":0.7,\"act\":true,"
                + "\"origin\":\"template\",\"method\":\"fitted_head\",\"head\":\"head_9\"}"));
        assertThat(answer.gate().head()).contains("head_9");
        assertThat(answer.word()).isEqualTo("yes");
    }

    @Test
    void anAnswerOfAnUnknownTypeIsRefused() {
        assertThatThrownBy(() -> AnswerCodec.read(Json.read("{\"type\":\"essay\",\"certainty\":1}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("essay");
    }
}
