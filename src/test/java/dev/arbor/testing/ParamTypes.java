package dev.arbor.testing;

import java.util.List;

/** The types an action catalog's params may have: the service contract's list (2.5, action metadata). */
public final class ParamTypes {
    public static final List<String> CONTRACT = List.of(
            "string",
            "number",
            "boolean",
            "select",
            "multiselect",
            "json",
            "template",
            "range",
            "model_ref",
            "cluster_ref",
            "project_ref",
            "endpoint_ref",
            "endpoint_ref_list",
            "endpoint_weighted_list",
            "endpoint_ordered_list",
            "provider_ref",
            "credential_ref",
            "cloud_model_ref",
            "branches",
            "content_rule_list",
            "string_list");

    private ParamTypes() {}
}
