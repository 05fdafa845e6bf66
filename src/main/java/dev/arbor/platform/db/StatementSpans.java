package dev.arbor.platform.db;

import dev.arbor.platform.tracing.LeafSpan;
import io.opentelemetry.api.trace.SpanKind;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.statement.SqlLogger;
import org.jdbi.v3.core.statement.StatementContext;
import org.jspecify.annotations.Nullable;

/**
 * A span per SQL statement run through JDBI inside traced work, with OpenTelemetry's database conventions: the
 * system, the operation ({@code SELECT}, {@code INSERT}, ...) and the table the statement names first, and a name
 * made of the two. Never the statement's text or its values (the bound values are never read here). Statements of
 * work that is not traced make no span.
 */
final class StatementSpans implements SqlLogger {
    private static final String SPAN = "arbor.statement_span";
    private static final Pattern OPERATION = Pattern.compile("^\\s*(\\w+)");
    private static final Pattern TABLE = Pattern.compile(
            "\\b(?:FROM|INTO|UPDATE|JOIN|TABLE)\\s+(?:IF\\s+(?:NOT\\s+)?EXISTS\\s+)?\"?([A-Za-z_][A-Za-z0-9_]*)",
            Pattern.CASE_INSENSITIVE);

    private final String system;

    StatementSpans(Dialect dialect) {
        this.system = dialect == Dialect.SQLITE ? "sqlite" : "postgresql";
    }

    @Override
    public void logBeforeExecution(StatementContext context) {
        String sql = context.getRenderedSql();
        if (sql == null) {
            return;
        }
        String operation = operation(sql);
        Optional<String> table = table(sql);
        LeafSpan span = LeafSpan.start(table.map(t -> operation + " " + t).orElse(operation), SpanKind.CLIENT);
        if (!span.recording()) {
            return;
        }
        span.with("db.system.name", system).with("db.operation.name", operation);
        table.ifPresent(t -> span.with("db.collection.name", t));
        context.define(SPAN, span);
    }

    @Override
    public void logAfterExecution(StatementContext context) {
        LeafSpan span = span(context);
        if (span != null) {
            span.end();
        }
    }

    @Override
    public void logException(StatementContext context, SQLException ex) {
        LeafSpan span = span(context);
        if (span != null) {
            // the SQL state names the kind of failure; the message may quote values, so it is left out
            span.failed(Optional.ofNullable(ex.getSQLState()).orElse("sql_error"), "the statement failed");
            span.end();
        }
    }

    private static @Nullable LeafSpan span(StatementContext context) {
        return context.getAttribute(SPAN) instanceof LeafSpan span ? span : null;
    }

    /** The statement's first word, upper-cased: {@code SELECT}, {@code INSERT}, {@code WITH}, ... */
    static String operation(String sql) {
        Matcher matcher = OPERATION.matcher(sql);
        return matcher.find() ? matcher.group(1).toUpperCase(Locale.ROOT) : "SQL";
    }

    /** The first table the statement names after {@code FROM}, {@code INTO}, {@code UPDATE} or {@code JOIN}. */
    static Optional<String> table(String sql) {
        Matcher matcher = TABLE.matcher(sql);
        return matcher.find() ? Optional.of(matcher.group(1).toLowerCase(Locale.ROOT)) : Optional.empty();
    }
}
