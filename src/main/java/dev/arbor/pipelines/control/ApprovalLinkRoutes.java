package dev.arbor.pipelines.control;

import static java.util.Objects.requireNonNull;

import dev.arbor.pipelines.runs.ApprovalLinks;
import dev.arbor.pipelines.runs.ApprovalLinks.LinkState;
import dev.arbor.pipelines.runs.RunEngine;
import dev.arbor.pipelines.runs.store.ApprovalStore;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.time.Instant;

/**
 * The one-click links of approval emails. They take no token: the link's signed id is the credential. Opening one
 * (a GET, which mail scanners and link previews also do) only shows the question and a button; the button posts to
 * the same address, and that post answers. A forged, used or expired link, or one whose question was answered or is no
 * longer asked, is a page saying so. The pages are HTML with nothing to run, never framed (the button cannot be
 * clicked through another site's page), never cached, and send no referrer (the address is the credential); a post
 * from another site's page is refused by the server's cross-site guard before it gets here.
 */
public final class ApprovalLinkRoutes {
    private static final String POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
            + "form-action 'self'; frame-ancestors 'none'";
    private final RunEngine engine;

    public ApprovalLinkRoutes(RunEngine engine) {
        this.engine = requireNonNull(engine, "engine");
    }

    public void addTo(Routes routes) {
        routes.group("pipelines")
                .get(
                        ApprovalLinks.PATH + "{token}",
                        "An approval email's one-click link (no API token: the link is the credential): a page that"
                                + " shows the question and a button that answers it",
                        this::show)
                .answers(200, "text/html", Schema.string())
                .action(
                        ApprovalLinks.PATH + "{token}",
                        "Answer an approval step with an email's one-click link, as its recipient: once, while the"
                                + " question is pending and its time has not run out; a page says what happened",
                        this::use)
                .answers(200, "text/html", Schema.string());
    }

    private void show(Context ctx) {
        page(ctx, engine.look(ctx.pathParam("token")));
    }

    private void use(Context ctx) {
        page(ctx, engine.answer(ctx.pathParam("token")));
    }

    private static void page(Context ctx, LinkState state) {
        ctx.header("Content-Security-Policy", POLICY);
        ctx.header("Cache-Control", "no-store");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("X-Frame-Options", "DENY");
        ctx.contentType("text/html; charset=utf-8");
        switch (state) {
            case LinkState.Invalid invalid ->
                ctx.status(404)
                        .result(html(
                                "This link is not valid",
                                "<p>This is not a link this server sent, or it was changed on the way. Nothing was "
                                        + "answered.</p>"));
            case LinkState.Used used ->
                ctx.status(410)
                        .result(html(
                                "This link was used already",
                                "<p>It answered at " + Instant.ofEpochMilli(used.usedAt())
                                        + "; a link answers once.</p>" + question(used.approval())
                                        + answer(used.approval())));
            case LinkState.Expired expired ->
                ctx.status(410)
                        .result(html(
                                "This link has expired",
                                "<p>The question's time ran out at "
                                        + Instant.ofEpochMilli(
                                                expired.approval().expiresAt())
                                        + ". Nothing was answered.</p>" + question(expired.approval())));
            case LinkState.AnsweredAlready answered ->
                ctx.status(409)
                        .result(html(
                                "This question was answered already",
                                "<p>Nothing was changed.</p>" + question(answered.approval())
                                        + answer(answered.approval())));
            case LinkState.NoLongerAsked gone ->
                ctx.status(409)
                        .result(html(
                                "This question is no longer asked",
                                "<p>Its run is " + gone.runStatus().json()
                                        + (gone.runStatus().active()
                                                ? " and was retried since: it asks again, by a new email."
                                                : ".")
                                        + " Nothing was answered.</p>" + question(gone.approval())));
            case LinkState.Open open ->
                ctx.status(200)
                        .result(html(
                                (open.decision() == ApprovalStore.Status.APPROVED ? "Approve" : "Reject") + "?",
                                question(open.approval()) + "<p>You answer as " + escape(open.recipient())
                                        + ". The link works once.</p><form method=\"post\"><button type=\"submit\">"
                                        + (open.decision() == ApprovalStore.Status.APPROVED ? "Approve" : "Reject")
                                        + "</button></form>"));
            case LinkState.Decided decided ->
                ctx.status(200)
                        .result(html(
                                decided.decision() == ApprovalStore.Status.APPROVED ? "Approved" : "Rejected",
                                "<p>Thank you: the run "
                                        + (decided.decision() == ApprovalStore.Status.APPROVED
                                                ? "goes on."
                                                : "does not go past this step.")
                                        + "</p>" + question(decided.approval()) + answer(decided.approval())));
        }
    }

    private static String question(ApprovalStore.Approval approval) {
        return "<blockquote>" + escape(approval.message()).replace("\n", "<br>") + "</blockquote><p>Pipeline "
                + escape(approval.pipelineId()) + ", run " + escape(approval.runId()) + ", step "
                + escape(approval.stepId()) + ".</p>";
    }

    private static String answer(ApprovalStore.Approval approval) {
        if (approval.status() == ApprovalStore.Status.PENDING) {
            return "";
        }
        return "<p>Answer: " + approval.status().json() + " by "
                + escape(approval.decidedBy().orElse("?"))
                + (approval.decidedAt().isPresent()
                        ? " at " + Instant.ofEpochMilli(approval.decidedAt().getAsLong())
                        : "")
                + ".</p>";
    }

    private static String html(String title, String body) {
        return """
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
                <meta name="referrer" content="no-referrer"><title>%s</title>
                <style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}
                blockquote{border-left:3px solid #f59e0b;margin:1rem 0;padding:.5rem 1rem;background:#fffbeb}
                button{font:inherit;padding:.5rem 1.5rem}</style></head>
                <body><h1>%s</h1>%s</body></html>
                """.formatted(escape(title), escape(title), body);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;")
                .replace("'", "&#39;");
    }
}
