-- Where notifications go: one row per channel (email, team_chat_1, team_chat_2). Settings are plain JSON; the
-- channel's secret (the SMTP password, or the chat webhook URL, which carries its token) is sealed and never shown.
CREATE TABLE notification_channels (
    channel     TEXT    PRIMARY KEY,
    settings    TEXT    NOT NULL,
    secret      TEXT,
    updated_at  INTEGER  NOT NULL
);
