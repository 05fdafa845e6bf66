package dev.arbor.inference.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.re2j.Pattern;
import dev.arbor.inference.openai.Operation;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Output rules on a stream give the text they give the whole answer, wherever the chunks split it. */
class AnswerRulesTest {
    private static final String TEXT = "Call 555-0100 or write secret@example.com; the SECRET is 555-0199, secretly.";

    private static Exchange.OutputRule rule(String pattern, boolean regex, PlanStep.RuleAction action) {
        var rule = new PlanStep.ContentRule(
                Pattern.compile(regex ? pattern : Pattern.quote(pattern), Pattern.CASE_INSENSITIVE),
                action,
                "flag",
                false,
                true,
                regex ? AnswerRules.REGEX_WINDOW : pattern.length());
        return new Exchange.OutputRule(new PlanStep.ContentRules("guard", List.of(rule), "No.", "go"), rule);
    }

    private static List<Exchange.OutputRule> rules() {
        return List.of(
                rule("secret", false, PlanStep.RuleAction.REDACT),
                rule("\\d{3}-\\d{4}", true, PlanStep.RuleAction.REDACT),
                rule("example", false, PlanStep.RuleAction.TAG));
    }

    private static ObjectNode chunk(String text) {
        ObjectNode chunk = Json.object().put("object", "chat.completion.chunk");
        chunk.putArray("choices").addObject().put("index", 0).putObject("delta").put("content", text);
        return chunk;
    }

    /** The text a caller reads when {@code parts} stream through the rules. */
    private static String streamed(AnswerRules rules, List<String> parts) {
        var read = new StringBuilder();
        ObjectNode last = chunk("");
        for (String part : parts) {
            last = chunk(part);
            read.append(rules.chunk(last).at("/choices/0/delta/content").asText());
        }
        rules.finish(last)
                .heldBack()
                .ifPresent(
                        held -> read.append(held.at("/choices/0/delta/content").asText()));
        return read.toString();
    }

    @Test
    void anySplitOfTheTextReadsAsTheWholeAnswerDoes() {
        String whole = new AnswerRules(rules(), Operation.CHAT_COMPLETIONS).whole(TEXT);
        assertThat(whole)
                .isEqualTo("Call [REDACTED] or write [REDACTED]@example.com; the [REDACTED] is [REDACTED], "
                        + "[REDACTED]ly.");
        var random = new Random(23);
        for (int run = 0; run < 500; run++) {
            var parts = new ArrayList<String>();
            int at = 0;
            while (at < TEXT.length()) {
                int next = Math.min(TEXT.length(), at + 1 + random.nextInt(8));
                parts.add(TEXT.substring(at, next));
                at = next;
            }
            var rules = new AnswerRules(rules(), Operation.CHAT_COMPLETIONS);
            assertThat(streamed(rules, parts)).as(parts.toString()).isEqualTo(whole);
            assertThat(rules.tags()).containsExactly("flag");
        }
    }

    @Test
    void textThatCannotStartAMatchGoesOnInItsChunk() {
        var rules = new AnswerRules(rules(), Operation.CHAT_COMPLETIONS);
        ObjectNode sent = chunk("Hello there. ");
        assertThat(rules.chunk(sent)).isSameAs(sent);
    }

    @Test
    void onlyTheTailThatMayStartAKeywordWaits() {
        var rules = new AnswerRules(rules(), Operation.CHAT_COMPLETIONS);
        assertThat(rules.chunk(chunk("Keep it sec"))
                        .at("/choices/0/delta/content")
                        .asText())
                .isEqualTo("Keep it ");
    }

    @Test
    void aBlockRuleRefusesAMatchSplitAcrossChunksNamingItsStep() {
        var rules = new AnswerRules(
                List.of(rule("forbidden", false, PlanStep.RuleAction.BLOCK)), Operation.CHAT_COMPLETIONS);
        assertThat(rules.chunk(chunk("It is forb"))
                        .at("/choices/0/delta/content")
                        .asText())
                .isEqualTo("It is ");
        assertThatThrownBy(() -> rules.chunk(chunk("idden."))).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.code().code()).isEqualTo("content_blocked");
            assertThat(e.extra()).containsEntry("step", "guard");
        });
    }

    @Test
    void aTextCompletionsStreamIsEditedInItsTextField() {
        var rules = new AnswerRules(rules(), Operation.COMPLETIONS);
        ObjectNode chunk = Json.object();
        chunk.putArray("choices").addObject().put("index", 0).put("text", "a secret");
        assertThat(rules.chunk(chunk).at("/choices/0/text").asText()).isEqualTo("a [REDACTED]");
    }
}
