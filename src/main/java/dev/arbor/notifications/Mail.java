package dev.arbor.notifications;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import dev.arbor.platform.outbound.PinnedSocketFactory;
import jakarta.mail.Authenticator;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.PasswordAuthentication;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/** Sends a notification by SMTP (Jakarta Mail), plain text in UTF-8, with the priority as mail clients read it. */
final class Mail {
    static final int DEFAULT_PORT = 587;
    private static final int SUBJECT_CHARACTERS = 100;

    private Mail() {}

    /** Sends one message; the mail server must pass {@code policy}, as every outbound call does. */
    static void send(
            OutboundPolicy policy,
            ObjectNode settings,
            Optional<String> password,
            String text,
            List<String> recipients,
            String priority)
            throws NotificationException {
        int port = settings.path("smtp_port").asInt(DEFAULT_PORT);
        InetAddress checked;
        try {
            checked =
                    policy.checkHost(settings.path("smtp_host").asText(), port).getFirst();
        } catch (OutboundRefusedException e) {
            throw new NotificationException(
                    "host_not_allowed", "The mail server cannot be used: " + e.getMessage(), false);
        }
        if (recipients.isEmpty()) {
            throw new NotificationException("invalid_recipients", "An email needs at least one recipient.", false);
        }
        InternetAddress[] to = new InternetAddress[recipients.size()];
        for (int i = 0; i < to.length; i++) {
            to[i] = address(recipients.get(i), "recipient");
        }
        String security = settings.path("security").asText("starttls");
        var properties = new Properties();
        properties.put("mail.smtp.host", settings.path("smtp_host").asText());
        properties.put("mail.smtp.port", Integer.toString(port));
        // the mail library resolves the host again: its sockets go to the address just checked instead
        properties.put("mail.smtp.socketFactory", new PinnedSocketFactory(new InetSocketAddress(checked, port)));
        properties.put("mail.smtp.socketFactory.fallback", "false");
        properties.put("mail.smtp.connectiontimeout", "10000");
        properties.put("mail.smtp.timeout", "30000");
        properties.put("mail.smtp.writetimeout", "30000");
        properties.put("mail.smtp.starttls.enable", Boolean.toString(security.equals("starttls")));
        properties.put("mail.smtp.starttls.required", Boolean.toString(security.equals("starttls")));
        properties.put("mail.smtp.ssl.enable", Boolean.toString(security.equals("tls")));
        Optional<String> username =
                Optional.ofNullable(settings.path("username").textValue());
        properties.put("mail.smtp.auth", Boolean.toString(username.isPresent()));
        Session session = Session.getInstance(
                properties,
                username.map(user -> new Authenticator() {
                            @Override
                            protected PasswordAuthentication getPasswordAuthentication() {
                                return new PasswordAuthentication(user, password.orElse(""));
                            }
                        })
                        .orElse(null));
        try {
            var message = new MimeMessage(session);
            message.setFrom(address(settings.path("from").asText(), "sender"));
            message.setRecipients(Message.RecipientType.TO, to);
            message.setSubject(subject(text, priority), "UTF-8");
            message.setText(text, "UTF-8");
            switch (priority) {
                case "high" -> {
                    message.setHeader("X-Priority", "1");
                    message.setHeader("Importance", "high");
                }
                case "low" -> {
                    message.setHeader("X-Priority", "5");
                    message.setHeader("Importance", "low");
                }
                default -> {}
            }
            Transport.send(message);
        } catch (MessagingException e) {
            throw new NotificationException(
                    "delivery_failed",
                    "The mail server " + settings.path("smtp_host").asText() + " did not take the message: "
                            + e.getMessage(),
                    true);
        }
    }

    /** The first line of the message, shortened: what a reader sees in a list of mail. */
    private static String subject(String text, String priority) {
        String first = text.strip().lines().findFirst().orElse("Pipeline notification");
        if (first.length() > SUBJECT_CHARACTERS) {
            first = first.substring(0, SUBJECT_CHARACTERS - 1) + "…";
        }
        return (priority.equals("high") ? "[high] " : "") + first;
    }

    static InternetAddress address(String text, String what) throws NotificationException {
        try {
            var address = new InternetAddress(text, true);
            address.validate();
            return address;
        } catch (AddressException e) {
            throw new NotificationException(
                    "invalid_recipients",
                    "'" + text + "' is not an email address for the " + what + ": " + e.getMessage(),
                    false);
        }
    }
}
