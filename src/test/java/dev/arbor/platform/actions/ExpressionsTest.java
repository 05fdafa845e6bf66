package dev.arbor.platform.actions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Regular expressions in templates and conditions run on RE2/J only: Java's own backtracking ones are not reached. */
class ExpressionsTest {
    private final Expressions expressions = new Expressions();

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "'ab'.matches('a.')",
                "'ab'.replaceAll('a', 'b') == 'bb'",
                "'ab'.replaceFirst('a', 'b') == 'bb'",
                "'a,b'.split(',')|length == 2"
            })
    void javasRegularExpressionMethodsCannotBeCalled(String condition) {
        assertThatThrownBy(() -> expressions.holds(condition, Map.of()))
                .isInstanceOf(Expressions.ExpressionException.class);
    }

    @Test
    void regexReplaceAnswersAPatternThatMakesBacktrackingExplode() {
        String text = "a".repeat(10_000) + "!";
        assertThat(expressions.render(
                        TextNode.valueOf("{{ params.text|regex_replace('^(a+)+$', 'x') }}"),
                        Map.of("params", Map.of("text", text))))
                .isEqualTo(TextNode.valueOf(text));
    }
}
