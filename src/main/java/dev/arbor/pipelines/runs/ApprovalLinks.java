package dev.arbor.pipelines.runs;

import static java.util.Objects.requireNonNull;

import dev.arbor.notifications.NotificationException;
import dev.arbor.notifications.Notifications;
import dev.arbor.pipelines.runs.store.ApprovalStore;
import dev.arbor.pipelines.runs.store.ApprovalStore.Approval;
import dev.arbor.pipelines.runs.store.ApprovalStore.Status;
import dev.arbor.pipelines.runs.store.RunStore.RunStatus;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * An approval step's channels: the email it sends each recipient, with a signed one-click link to approve and one to
 * reject, and the team chats it tells. A link is {@code <link id>.<HMAC-SHA256 of the id>} under a key derived from
 * the server's secret key, so a forged one is refused before anything is read; it answers once, as its recipient, while
 * its question is pending and its time has not run out.
 */
public final class ApprovalLinks {
    /** Where a link is opened: a page that shows the question; its button posts the answer to the same URL. */
    public static final String PATH = "/approval-links/";

    /** Who answers a question whose time ran out: its {@code on_timeout}. */
    private static final String TIMEOUT = "timeout";

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();
    private final ApprovalStore approvals;
    private final Notifications notifications;
    private final byte[] key;
    private final Supplier<String> publicUrl;
    private final Clock clock;

    /**
     * @param key the key that signs links (derived from the server's secret key for this purpose only)
     * @param publicUrl where people reach this server, for the links and the console's run page
     */
    public ApprovalLinks(
            ApprovalStore approvals, Notifications notifications, byte[] key, Supplier<String> publicUrl, Clock clock) {
        this.approvals = requireNonNull(approvals, "approvals");
        this.notifications = requireNonNull(notifications, "notifications");
        this.key = key.clone();
        this.publicUrl = requireNonNull(publicUrl, "publicUrl");
        this.clock = requireNonNull(clock, "clock");
    }

    /** The link's token: its id and the id's signature. */
    String token(String linkId) {
        return linkId + "." + signature(linkId);
    }

    /** The id of the link a token names, when its signature is this server's; empty for a forged or mangled one. */
    public Optional<String> linkId(String token) {
        int dot = token.lastIndexOf('.');
        if (dot <= 0) {
            return Optional.empty();
        }
        String id = token.substring(0, dot);
        byte[] given = token.substring(dot + 1).getBytes(StandardCharsets.US_ASCII);
        byte[] expected = signature(id).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(given, expected) ? Optional.of(id) : Optional.empty();
    }

    private String signature(String linkId) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return BASE64.encodeToString(mac.doFinal(linkId.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    /**
     * Tells a question's channels of it, once: an email to each recipient with its links, a line to each team chat.
     * A channel that fails is not tried again (the question can still be answered in the API and the console); the
     * answer lists what failed, for the run's events. A server killed while telling tells again when the step's
     * execution runs again, with new links (the first ones keep working).
     */
    List<String> tell(Approval approval, List<String> channels, List<String> recipients) throws InterruptedException {
        if (channels.isEmpty() || approvals.notified(approval.id())) {
            return List.of();
        }
        var failures = new ArrayList<String>();
        for (String channel : channels) {
            try {
                if (channel.equals("email")) {
                    for (String recipient : recipients) {
                        notifications.send(channel, email(approval, recipient), List.of(recipient), "high");
                    }
                } else {
                    notifications.send(channel, chat(approval), List.of(), "high");
                }
            } catch (NotificationException e) {
                failures.add("The " + channel + " channel could not be told of the question (" + e.code() + ": "
                        + e.getMessage() + ").");
            }
        }
        approvals.markNotified(approval.id(), clock.millis());
        return failures;
    }

    private String email(Approval approval, String recipient) {
        long now = clock.millis();
        String approve = url(approvals.newLink(approval.id(), Status.APPROVED, recipient, now));
        String reject = url(approvals.newLink(approval.id(), Status.REJECTED, recipient, now));
        return "Approval needed: " + firstLine(approval.message()) + "\n\n"
                + approval.message() + "\n\n"
                + where(approval) + "\n\n"
                + "Approve: " + approve + "\n"
                + "Reject: " + reject + "\n\n"
                + "Each link opens a page that asks you to confirm; it answers once, as " + recipient
                + ", until " + Instant.ofEpochMilli(approval.expiresAt()) + " (later if the run is paused meanwhile)."
                + "\n";
    }

    private String chat(Approval approval) {
        return "Approval needed: " + approval.message() + "\n" + where(approval) + "\nAnswer on the run's page: "
                + publicUrl.get() + "/console/pipelines/runs/" + approval.runId() + " (or POST /runs/"
                + approval.runId() + "/steps/" + approval.stepId() + "/approval).";
    }

    private static String where(Approval approval) {
        return "Pipeline " + approval.pipelineId() + ", run " + approval.runId() + ", step " + approval.stepId() + ".";
    }

    private String url(String linkId) {
        return publicUrl.get() + PATH + token(linkId);
    }

    private static String firstLine(String message) {
        String line = message.strip().lines().findFirst().orElse("");
        return line.length() > 150 ? line.substring(0, 150) + "…" : line;
    }

    /** What a link comes to, when opened or clicked. */
    public sealed interface LinkState {
        /** Not a link of this server: a forged or mangled token, or one whose question is gone. */
        record Invalid() implements LinkState {}

        /** The link has answered already. */
        record Used(Approval approval, long usedAt) implements LinkState {}

        /** The question's time ran out before the link was used. */
        record Expired(Approval approval) implements LinkState {}

        /** Someone else (or the timeout) answered first. */
        record AnsweredAlready(Approval approval) implements LinkState {}

        /** The question is no longer asked: its run ended, or was retried and asks again. */
        record NoLongerAsked(Approval approval, RunStatus runStatus) implements LinkState {}

        /** The link may answer: opened, it shows this question and the answer it gives. */
        record Open(Approval approval, Status decision, String recipient) implements LinkState {}

        /** This click answered the question. */
        record Decided(Approval approval, Status decision, String recipient) implements LinkState {}
    }

    /**
     * Why a link may not answer now, or empty when it may: used; then expired (its time ran out, whether or not the
     * timeout has answered yet); then answered by someone; then no longer asked (its run ended or was retried).
     */
    static Optional<LinkState> refusal(
            ApprovalStore.Link link, Approval approval, RunStatus runStatus, int runGeneration, long now) {
        if (link.usedAt().isPresent()) {
            return Optional.of(new LinkState.Used(approval, link.usedAt().getAsLong()));
        }
        boolean timedOut = approval.status() == Status.PENDING
                ? now >= approval.expiresAt()
                : approval.decidedBy().filter(TIMEOUT::equals).isPresent();
        if (timedOut) {
            return Optional.of(new LinkState.Expired(approval));
        }
        if (approval.status() != Status.PENDING) {
            return Optional.of(new LinkState.AnsweredAlready(approval));
        }
        if (!runStatus.active() || runGeneration != approval.generation()) {
            return Optional.of(new LinkState.NoLongerAsked(approval, runStatus));
        }
        return Optional.empty();
    }
}
