package dev.arbor.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the audit log never keeps: a resource's state is what its read shows, which never shows a write-only value (a
 * token, a key's or credential's secret, a webhook's signing secret, a kubeconfig); this masks, besides, any field
 * named as a secret is and any text shaped as one of Arbor's secrets is, in case a read ever showed one.
 */
final class Redaction {
    static final String MASK = "[redacted]";

    private static final Set<String> SECRET_NAMES = Set.of(
            "secret",
            "secrets",
            "token",
            "password",
            "passphrase",
            "api_key",
            "apikey",
            "authorization",
            "kubeconfig",
            "code_verifier");
    private static final Pattern SECRET_SUFFIX =
            Pattern.compile(".*(_secret|_password|_token|api_key|private_key|secret_key|access_key|_kubeconfig)$");
    /** Arbor's own secrets: API tokens, inference keys, Standard Webhooks signing secrets. */
    private static final Pattern SECRET_TEXT = Pattern.compile("^(arb_[A-Za-z0-9_-]{20,}|sk-arb-.+|whsec_.+)$");
    /** A webhook URL's last segment is the credential its deliveries authenticate with. */
    private static final Pattern HOOK_URL = Pattern.compile("(/events/hooks/)[^/?#\\s\"]+");

    private Redaction() {}

    /** A copy of {@code node} with every secret masked. */
    static JsonNode redact(JsonNode node) {
        return switch (node) {
            case ObjectNode object -> {
                ObjectNode copy = JsonNodeFactory.instance.objectNode();
                for (Map.Entry<String, JsonNode> field : object.properties()) {
                    JsonNode value = field.getValue();
                    copy.set(
                            field.getKey(),
                            secretName(field.getKey()) && !value.isNull() && !value.isBoolean()
                                    ? TextNode.valueOf(MASK)
                                    : redact(value));
                }
                yield copy;
            }
            case ArrayNode array -> {
                ArrayNode copy = JsonNodeFactory.instance.arrayNode();
                array.forEach(item -> copy.add(redact(item)));
                yield copy;
            }
            case TextNode text -> TextNode.valueOf(redact(text.asText()));
            default -> node.deepCopy();
        };
    }

    /** {@code text} masked when it is a secret, or its webhook URL's token masked. */
    static String redact(String text) {
        if (SECRET_TEXT.matcher(text).matches()) {
            return MASK;
        }
        return HOOK_URL.matcher(text).replaceAll("$1" + "***");
    }

    /** Whether a field so named holds a secret; an id, a hint or a count of one does not. */
    static boolean secretName(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return SECRET_NAMES.contains(lower) || SECRET_SUFFIX.matcher(lower).matches();
    }
}
