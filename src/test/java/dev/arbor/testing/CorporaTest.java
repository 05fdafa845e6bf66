package dev.arbor.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.Corpora.Item;
import dev.arbor.testing.Corpora.Part;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CorporaTest {
    @Test
    void theMailCorpusHoldsEveryMailWithItsLabelAndReadableText() {
        List<Item> mails = Corpora.spamAssassin();

        assertThat(countByLabel(mails)).isEqualTo(Map.of("spam", 1896L, "ham", 4150L));
        assertThat(mails).allSatisfy(mail -> assertThat(mail.text()).doesNotStartWith("From "));
        assertThat(mails.getFirst().text()).startsWith("Subject: ");
    }

    @Test
    void theReviewSentencesAreLabelledBySentimentAndByWhatTheyReview() {
        assertThat(countByLabel(Corpora.sentiment())).isEqualTo(Map.of("positive", 1500L, "negative", 1500L));
        assertThat(countByLabel(Corpora.reviewTopics()))
                .isEqualTo(Map.of("product", 1000L, "movie", 1000L, "restaurant", 1000L));
    }

    @Test
    void theLexiconsWordsCarryTheirTenRatingsAndTheLevelTheirMeanRoundsInto() {
        List<Corpora.RatedWord> words = Corpora.vaderWords();

        assertThat(words)
                .hasSize(7203)
                .allSatisfy(word -> assertThat(word.ratings())
                        .hasSize(10)
                        .allSatisfy(rating -> assertThat(rating).isBetween(-4, 4)));
        assertThat(words).extracting(Corpora.RatedWord::word).doesNotContain(":)", "lol", "xd");
        assertThat(countByLabel(Corpora.valence()))
                .isEqualTo(Map.of(
                        "very negative",
                        470L,
                        "negative",
                        3221L,
                        "neutral",
                        676L,
                        "positive",
                        2541L,
                        "very positive",
                        295L));
        Map<String, String> levels = Corpora.valence().stream().collect(Collectors.toMap(Item::text, Item::label));
        assertThat(levels).containsEntry("hate", "very negative").containsEntry("love", "very positive");
    }

    @Test
    void thePartsSplitTheItemsInTwoDisjointHalvesTheSameEachTime() {
        List<Item> mails = Corpora.spamAssassin();
        List<Item> fit = Corpora.part(mails, Part.FIT);
        List<Item> test = Corpora.part(mails, Part.TEST);

        assertThat(fit.size() + test.size()).isEqualTo(mails.size());
        assertThat(fit).doesNotContainAnyElementsOf(test);
        assertThat((double) fit.size() / mails.size()).isBetween(0.45, 0.55);
        assertThat(Corpora.part(Corpora.spamAssassin(), Part.FIT)).isEqualTo(fit);
    }

    @Test
    void aSliceIsTheSameEachTimeAndMixesTheLabels() {
        List<Item> slice = Corpora.slice(Corpora.sentiment(), 200);

        assertThat(slice).hasSize(200).isEqualTo(Corpora.slice(Corpora.sentiment(), 200));
        assertThat(countByLabel(slice).get("positive")).isBetween(70L, 130L);
        assertThat(slice.stream().map(Item::source).distinct()).hasSize(3);
    }

    private static Map<String, Long> countByLabel(List<Item> items) {
        return items.stream().collect(Collectors.groupingBy(Item::label, Collectors.counting()));
    }
}
