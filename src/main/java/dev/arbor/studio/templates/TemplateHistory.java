package dev.arbor.studio.templates;

/**
 * What history holds of a template's decisions. Decisions keep it; templates ask it before they delete, so that a
 * template whose decisions remain leaves its id reserved rather than free for another template.
 */
public interface TemplateHistory {
    /** How many stored decisions name the template. */
    long decisions(String templateId);

    /** Deletes the stored decisions that name the template; returns how many. */
    long deleteDecisions(String templateId);
}
