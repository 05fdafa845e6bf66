package dev.arbor.inference.steps;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What the pii step finds, and what only looks like it: a number that fails its checksum is not a card or an IBAN. */
class PiiScannerTest {
    static Stream<Arguments> texts() {
        return Stream.of(
                Arguments.of("Write to jane.doe+news@example.co.uk today", "Write to [REDACTED:email] today"),
                Arguments.of("Card 4111 1111 1111 1111 please", "Card [REDACTED:card] please"),
                Arguments.of("Card 4111 1111 1111 1112 please", "Card 4111 1111 1111 1112 please"),
                Arguments.of("IBAN GB82 WEST 1234 5698 7654 32 ok", "IBAN [REDACTED:iban] ok"),
                Arguments.of("IBAN GB82 WEST 1234 5698 7654 33 ok", "IBAN GB82 WEST 1234 5698 7654 33 ok"),
                Arguments.of("SSN 123-45-6789.", "SSN [REDACTED:national_id]."),
                Arguments.of("SSN 666-45-6789.", "SSN 666-45-6789."),
                Arguments.of("NI number AB 12 34 56 C", "NI number [REDACTED:national_id]"),
                Arguments.of(
                        "US office 415-555-0132 or (020) 7946 0958", "US office [REDACTED:phone] or [REDACTED:phone]"),
                Arguments.of("from 192.168.10.25 at noon", "from [REDACTED:ip] at noon"),
                Arguments.of("not 999.1.1.1 though", "not 999.1.1.1 though"),
                Arguments.of("call +44 20 7946 0958 now", "call [REDACTED:phone] now"),
                Arguments.of("key sk-proj-abcdefghijklmnopqrstuvwx1234 here", "key [REDACTED:secret] here"),
                Arguments.of("aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED:secret]"),
                Arguments.of("token 9fQ2xL7vB1nR8kT4pW6zY3cH5mJ0dG2s end", "token [REDACTED:secret] end"),
                Arguments.of("plain words and the year 2024", "plain words and the year 2024"));
    }

    @ParameterizedTest
    @MethodSource("texts")
    void eachKindIsFoundAndRedactedAndLookalikesAreLeft(String text, String redacted) {
        var all = EnumSet.allOf(PiiScanner.Kind.class);
        assertThat(PiiScanner.redact(text, PiiScanner.find(text, all))).isEqualTo(redacted);
    }

    @org.junit.jupiter.api.Test
    void onlyTheKindsAskedForAreFound() {
        String text = "jane@example.com, 4111111111111111";
        assertThat(PiiScanner.find(text, EnumSet.of(PiiScanner.Kind.CARD)))
                .extracting(PiiScanner.Hit::kind)
                .isEqualTo(List.of(PiiScanner.Kind.CARD));
    }
}
