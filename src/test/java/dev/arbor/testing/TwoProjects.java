package dev.arbor.testing;

/**
 * Two projects an admin made, {@code mine} and {@code theirs}, and the secret of a member token of {@code mine} only:
 * what tests need to show that a member stays in its own project.
 */
public record TwoProjects(String mine, String theirs, String memberSecret) {
    public static TwoProjects create(TestServer http, String adminSecret) {
        var admin = new AdminFixture(http, adminSecret);
        String mine = admin.create("/projects", "{\"name\": \"mine\"}");
        String theirs = admin.create("/projects", "{\"name\": \"theirs\"}");
        return new TwoProjects(
                mine, theirs, admin.memberToken(mine).path("token").asText());
    }
}
