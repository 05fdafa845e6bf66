package dev.arbor.connectors.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The pages an authorization may send the browser back to: those on the hosts {@code ARBOR_OAUTH_RETURN_HOSTS} lists. */
final class ReturnUrls {
    private final List<String> returnHosts;

    ReturnUrls(List<String> returnHosts) {
        this.returnHosts =
                returnHosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList();
    }

    /**
     * Where the authorization server sends the browser back (the OAuth redirect URI): an absolute http(s) URL without
     * a fragment on a host of {@code ARBOR_OAUTH_RETURN_HOSTS} (exactly, any port), https unless on this machine.
     */
    String check(Optional<JsonNode> sent, Problems problems) {
        if (sent.isEmpty()) {
            problems.add(
                    ErrorCode.MISSING_FIELD,
                    "return_url",
                    "`return_url` is required: the page the "
                            + "authorization server sends the browser back to, with the code and state to post to "
                            + "/connectors/oauth/callback.");
            return "";
        }
        JsonNode value = sent.get();
        String text = value.isTextual() ? value.textValue() : "";
        String problem = null;
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
            boolean local = host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]");
            if (!scheme.equals("https") && !(scheme.equals("http") && local)) {
                problem = "must be an https URL (http only on localhost)";
            } else if (host.isEmpty() || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
                problem = "must be an absolute URL with a host, without user info or fragment";
            } else if (!returnHosts.contains(host)) {
                problem = "names the host '" + host + "', which ARBOR_OAUTH_RETURN_HOSTS does not list (it lists "
                        + (returnHosts.isEmpty() ? "none" : String.join(", ", returnHosts)) + ")";
            }
        } catch (URISyntaxException e) {
            problem = "is not a URL";
        }
        if (problem != null || text.length() > 2048) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "return_url",
                    "`return_url` " + (problem == null ? "is too long" : problem) + ".");
        }
        return text;
    }
}
