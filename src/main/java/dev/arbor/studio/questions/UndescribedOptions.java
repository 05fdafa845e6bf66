package dev.arbor.studio.questions;

import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The {@code options_undescribed} warning, at a template's save and on a decision: a yes/no or choice question none of
 * whose options says what it means. The bundled embedding models compare the situation with each option's text, so a
 * bare "Is this mail spam? yes" gives them almost nothing to compare with: on 1,000 public mails such a question
 * ranked spam below ham with every small model measured (AUC 0.27–0.50, bench/studio-zeroshot), while written sides
 * raised it to 0.77–0.85. Questions whose options come from a variable per decision are left out: their author
 * cannot describe them in the template.
 */
public final class UndescribedOptions {
    private UndescribedOptions() {}

    public static List<Warning> warnings(List<Question> questions) {
        var warnings = new ArrayList<Warning>();
        for (Question question : questions) {
            if (question.dynamicOptions()) {
                continue;
            }
            switch (question.definition()) {
                case QuestionDefinition.YesNo yesNo
                when undescribed(yesNo.sides()) ->
                    warnings.add(warning(
                            question.key(),
                            "a yes/no question whose sides",
                            "{\"true\": \"what a yes looks like in the text\", "
                                    + "\"false\": \"what a no looks like\"}"));
                case QuestionDefinition.Choice choice
                when !choice.options().isEmpty() && undescribed(choice.options()) ->
                    warnings.add(warning(
                            question.key(),
                            "a choice question whose options",
                            choice.options().stream()
                                    .limit(3)
                                    .map(option ->
                                            "\"" + option.name() + "\": \"what " + option.name() + " means here\"")
                                    .collect(Collectors.joining(
                                            ", ", "{", choice.options().size() > 3 ? ", …}" : "}"))));
                default -> {
                    // other types are read by their labels or levels, which say what they mean
                }
            }
        }
        return List.copyOf(warnings);
    }

    private static boolean undescribed(List<QuestionDefinition.Option> options) {
        return options.stream().allMatch(option -> {
            String description = QuestionDefinition.description(option.description());
            return description == null || description.isBlank();
        });
    }

    private static Warning warning(String key, String what, String shape) {
        return new Warning(
                WarningCode.OPTIONS_UNDESCRIBED,
                "Question `" + key + "` is " + what + " carry no description: a small model reads such a question"
                        + " barely better than chance, so its answer will be weak and seldom certain enough to act."
                        + " Say in `criteria` what each one looks like in the text, such as " + shape + ".",
                "questions." + key);
    }
}
