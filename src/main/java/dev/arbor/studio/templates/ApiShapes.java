package dev.arbor.studio.templates;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Schema;
import dev.arbor.studio.definitions.checks.DefinitionValidator;

/**
 * The shapes of templates, for the OpenAPI document. A definition's own rules are {@link DefinitionValidator}'s;
 * this gives its fields and their types, and the OpenAPI test checks real requests and answers against it.
 */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema QUESTION = object().optional("type", string())
            .optional("instructions", string())
            .optional("criteria", Schema.anyOf(mapOf(any()), arrayOf(any())));
    static final Schema VARIABLE = object().optional("type", string())
            .optional("required", bool())
            .optional("sensitive", bool())
            .optional("trusted", bool());
    static final Schema DEFINITION = object().optional("id", string())
            .optional("name", string())
            .optional("description", string())
            .optional("metadata", mapOf(any()))
            .optional("note", string())
            .optional("model", nullable(string()))
            .optional("modalities", arrayOf(string()))
            .optional("variables", mapOf(VARIABLE))
            .optional("state", nullable(string()))
            .optional("questions", mapOf(QUESTION))
            .optional("settings", mapOf(any()))
            .optional("storage", string())
            .optional("retention_days", nullable(integer()))
            .optional("from", object().required("template", string()));
    static final Schema TEMPLATE = named(
            "Template",
            resource("template")
                    .required("name", string())
                    .required("description", string())
                    .required("origin", oneOf("builtin", "user"))
                    .required("archived", bool())
                    .required("metadata", mapOf(any()))
                    .required("storage", string())
                    .required("retention_days", nullable(integer()))
                    .required("aliases", mapOf(integer()))
                    .required("version", integer(1, Long.MAX_VALUE))
                    .required("note", string())
                    .required("content_hash", string())
                    .optional("variables", mapOf(VARIABLE))
                    .optional("questions", mapOf(QUESTION))
                    .optional("state", nullable(string()))
                    .optional("summary", mapOf(any()))
                    .optional("created_at", timestamp())
                    .optional("updated_at", timestamp()));
    static final Schema VERSION = named(
            "TemplateVersion",
            object().required("object", oneOf("template.version"))
                    .required("template", string())
                    .required("version", integer(1, Long.MAX_VALUE))
                    .required("note", string())
                    .required("content_hash", string())
                    .required("aliases", arrayOf(string()))
                    .required("changes", mapOf(any()))
                    .optional("source", string())
                    .optional("base_version", nullable(integer())));
    /** The list shape, with version numbers for cursors. */
    static final Schema VERSIONS = object().required("object", oneOf("list"))
            .required("data", arrayOf(VERSION))
            .required("first_id", nullable(integer()))
            .required("last_id", nullable(integer()))
            .required("has_more", bool());

    static final Schema DIFF = object().required("object", oneOf("template.diff"))
            .required("template", string())
            .required("from", integer())
            .required("to", integer())
            .required("class", string())
            .required("breaking_for_callers", bool())
            .required("changes", arrayOf(mapOf(any())));
    static final Schema COMPATIBILITY = object().required("object", oneOf("template.compatibility"))
            .required("template", string())
            .required("version", integer())
            .required(
                    "models",
                    arrayOf(object().required("model", string())
                            .required("ok", bool())
                            .required("problems", arrayOf(any()))
                            .optional("notes", arrayOf(any()))));
    static final Schema ALIAS = object().required("object", oneOf("template.alias"))
            .required("template", string())
            .required("alias", string())
            .required("version", integer())
            .required("previous_version", nullable(integer()))
            .required("updated_at", timestamp());
    static final Schema DELETED = object().required("id", string())
            .required("object", oneOf("template.deleted"))
            .required("deleted", bool())
            .optional("versions_kept", integer())
            .optional("decisions_deleted", integer());
    static final Schema ALIAS_DELETED = Schema.deleted("template.alias");
    static final Schema VARIABLES_SCHEMA = any("A JSON Schema (2020-12) of the version's variables");

    static final QueryParam VERSION_PARAM =
            new QueryParam("version", string(), "A version number or alias (default: latest).");
    static final QueryParam INCLUDE = new QueryParam(
            "include",
            oneOf("definition", "compatibility"),
            "definition adds each version's definition to a list; compatibility adds which models can run it.");
    static final QueryParam ORIGIN = new QueryParam("origin", oneOf("builtin", "user"), "Only these templates.");
    static final QueryParam SEARCH = new QueryParam("q", string(), "Words the name or description contain.");
    static final QueryParam CONFIRM = new QueryParam("confirm", string(), "The template's id, to confirm.");
    static final QueryParam HISTORY = new QueryParam(
            "history", oneOf("keep", "delete"), "What happens to the template's decisions (default keep).");
    static final QueryParam ARCHIVED =
            new QueryParam("archived", bool(), "Only archived (true) or unarchived " + "(false) templates.");
    static final QueryParam INCLUDE_ARCHIVED = new QueryParam(
            "include_archived", bool(), "List archived templates too (without it, only unarchived ones).");
    static final QueryParam AGAINST = new QueryParam("against", string(), "The version to compare with.");
}
