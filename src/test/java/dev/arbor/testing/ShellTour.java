package dev.arbor.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A block of shell commands from the documentation, run as a reader would: each command in bash with the real curl,
 * the variables the block sets taken from the answers it names, and every sample answer compared with the real one.
 * Only the port differs: the block's 8420 becomes the test server's.
 *
 * <p>The block is the first {@code sh} block after a heading: lines starting with {@code #} are comments, a line
 * {@code TOKEN=arb_...   # the "token" of the answer above: yours differs} takes the variable from the answer before
 * it, and a comment starting {@code # {} or {@code # [} right after a command is its sample answer (continued on
 * lines starting {@code #  }), shortened as {@link SampleJson} reads it.
 */
public final class ShellTour {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** {@code TOKEN=arb_...   # the "token" of the answer above: yours differs} */
    private static final Pattern ASSIGNMENT =
            Pattern.compile("([A-Z_]+)=\\S+\\s+# the \"(\\w+)\" of the answer above.*");

    public sealed interface Line {}

    public record Command(String text, Optional<SampleJson> sample) implements Line {}

    public record Assignment(String variable, String field) implements Line {}

    private ShellTour() {}

    /** Whether the tour can run here: its commands need curl. */
    public static boolean curlInstalled() {
        return onPath("curl");
    }

    /**
     * Runs the block's lines in order against a server listening on {@code port}; fails the test at the first command
     * that fails or answers other than its sample.
     *
     * @return the variables the block set, by name
     */
    public static Map<String, String> run(List<Line> block, int port) throws Exception {
        var variables = new HashMap<String, String>();
        JsonNode lastAnswer = null;
        for (Line line : block) {
            switch (line) {
                case Assignment assignment -> {
                    assertThat(lastAnswer)
                            .as("an answer before %s", assignment.variable())
                            .isNotNull();
                    JsonNode value = lastAnswer.path(assignment.field());
                    assertThat(value.isTextual())
                            .as(
                                    "the answer before %s has a \"%s\": %s",
                                    assignment.variable(), assignment.field(), lastAnswer)
                            .isTrue();
                    variables.put(assignment.variable(), value.textValue());
                }
                case Command command -> {
                    String output = bash(command.text().replace("localhost:8420", "localhost:" + port), variables);
                    lastAnswer = check(command, output);
                }
            }
        }
        return variables;
    }

    /** The answer as JSON where it is JSON; fails the test where it does not fit the sample or is an error. */
    private static JsonNode check(Command command, String output) {
        JsonNode answer;
        try {
            answer = JSON.readTree(output);
        } catch (IOException e) {
            answer = null;
        }
        if (command.sample().isPresent()) {
            if (answer == null) {
                fail("%s%nanswered what is not JSON:%n%s", command.text(), output);
            }
            Optional<String> mismatch = command.sample().get().mismatch(answer, "", "the answer");
            if (mismatch.isPresent()) {
                fail("%s%n%s:%n%s", command.text(), mismatch.get(), output);
            }
        } else {
            assertThat(output).as("the answer of %s", command.text()).isNotBlank();
            if (answer != null && answer.has("error")) {
                fail("%s%nfailed: %s", command.text(), output);
            }
        }
        return answer;
    }

    private static String bash(String command, Map<String, String> variables) throws Exception {
        var builder = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
        builder.environment().putAll(variables);
        builder.environment().put("no_proxy", "localhost,127.0.0.1");
        Process process = builder.start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            fail("%s did not finish", command);
        }
        assertThat(process.exitValue()).as("the exit status of %s", command).isZero();
        return new String(output, StandardCharsets.UTF_8);
    }

    /** The first {@code sh} block after {@code heading} (a whole line of the file) in {@code file}. */
    public static List<Line> read(Path file, String heading) throws IOException {
        String text = Files.readString(file);
        int at = text.indexOf("\n" + heading + "\n");
        assertThat(at).as("%s has the heading %s", file, heading).isNotNegative();
        int start = text.indexOf("```sh\n", at) + "```sh\n".length();
        List<String> lines =
                text.substring(start, text.indexOf("```", start)).lines().toList();
        var tour = new ArrayList<Line>();
        int i = 0;
        while (i < lines.size()) {
            String line = lines.get(i);
            Matcher assignment = ASSIGNMENT.matcher(line);
            if (line.isBlank() || line.startsWith("#")) {
                i++;
            } else if (assignment.matches()) {
                tour.add(new Assignment(assignment.group(1), assignment.group(2)));
                i++;
            } else {
                var command = new StringBuilder(line);
                while (command.chars().filter(c -> c == '\'').count() % 2 == 1 || line.endsWith("\\")) {
                    line = lines.get(++i);
                    command.append('\n').append(line);
                }
                i++;
                var sample = new StringBuilder();
                if (i < lines.size()
                        && (lines.get(i).startsWith("# {") || lines.get(i).startsWith("# ["))) {
                    sample.append(lines.get(i++).substring(2));
                    while (i < lines.size() && lines.get(i).startsWith("#  ")) {
                        sample.append(lines.get(i++).substring(1).strip());
                    }
                }
                tour.add(new Command(
                        command.toString(),
                        sample.isEmpty() ? Optional.empty() : Optional.of(SampleJson.parse(sample.toString()))));
            }
        }
        return tour;
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        return path != null
                && List.of(path.split(":")).stream().anyMatch(dir -> Files.isExecutable(Path.of(dir, program)));
    }
}
