package dev.arbor.studio.templates;

import dev.arbor.models.Models;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import java.time.Clock;

/** The studio's templates: versioned decision definitions. Other features use this, never the template tables. */
public final class Templates {
    private final TemplateStore store;
    private final TemplateService service;
    private final Models models;

    /** Opens the templates and seeds the starter templates. */
    public Templates(Database database, Clock clock, Models models) {
        this.store = new TemplateStore(database);
        this.service = new TemplateService(store, clock);
        this.models = models;
        StarterTemplates.seed(store, clock);
    }

    public void addRoutes(Routes routes) {
        new TemplateRoutes(service, store, models).addTo(routes);
    }
}
