package dev.arbor.routers;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/** Endpoints' health in the contract's list shape, as the router and routing health routes answer it. */
@JsonPropertyOrder({"object", "data"})
public record EndpointHealthList(
        @JsonProperty("object") String object,
        @JsonProperty("data") List<EndpointHealthReport> data) {
    public EndpointHealthList {
        data = List.copyOf(data);
    }

    public static EndpointHealthList of(List<EndpointHealthReport> data) {
        return new EndpointHealthList("list", data);
    }
}
