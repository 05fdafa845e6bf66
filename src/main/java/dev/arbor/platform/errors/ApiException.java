package dev.arbor.platform.errors;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A request that ends in the error envelope. The first problem decides the status and the top-level fields;
 * every problem goes into {@code details}.
 */
public final class ApiException extends RuntimeException {
    private final List<Problem> problems;
    private final Map<String, Object> extra;
    private final Map<String, String> headers;

    private ApiException(List<Problem> problems, Map<String, Object> extra, Map<String, String> headers) {
        super(problems.getFirst().code().code() + ": " + problems.getFirst().message(), null, false, false);
        this.problems = List.copyOf(problems);
        this.extra = Map.copyOf(extra);
        this.headers = Map.copyOf(headers);
    }

    public static ApiException of(ErrorCode code, @Nullable String param, String message) {
        return of(List.of(new Problem(code, param, message)));
    }

    /** An error that no single field of the request is at fault for. */
    public static ApiException of(ErrorCode code, String message) {
        return of(code, null, message);
    }

    public static ApiException of(List<Problem> problems) {
        requireNonNull(problems, "problems");
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("an error needs at least one problem");
        }
        return new ApiException(problems, Map.of(), Map.of());
    }

    /** The same error with a typed extra field in the envelope, such as {@code current_version}. */
    public ApiException withField(String name, Object value) {
        var fields = new LinkedHashMap<>(extra);
        fields.put(requireNonNull(name), requireNonNull(value));
        return new ApiException(problems, fields, headers);
    }

    /** The same error with a response header, such as {@code retry-after}. */
    public ApiException withHeader(String name, String value) {
        var all = new LinkedHashMap<>(headers);
        all.put(requireNonNull(name), requireNonNull(value));
        return new ApiException(problems, extra, all);
    }

    /** The same error under another code of the same status; what it says and carries stays. */
    public ApiException withCode(ErrorCode code) {
        requireNonNull(code, "code");
        var renamed = problems.stream()
                .map(p -> p.code() == code() ? new Problem(code, p.param(), p.message()) : p)
                .toList();
        return new ApiException(renamed, extra, headers);
    }

    @Override
    public String getMessage() {
        return requireNonNull(super.getMessage()); // the first problem's code and message
    }

    public ErrorCode code() {
        return problems.getFirst().code();
    }

    public int status() {
        return code().status();
    }

    public List<Problem> problems() {
        return problems;
    }

    public Map<String, Object> extra() {
        return extra;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
