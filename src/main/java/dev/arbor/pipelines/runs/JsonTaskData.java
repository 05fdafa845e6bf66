package dev.arbor.pipelines.runs;

import com.github.kagkarlsson.scheduler.serializer.Serializer;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Engine task data as JSON, readable in the database and safe to evolve, instead of Java serialization. */
public final class JsonTaskData implements Serializer {
    @Override
    public byte[] serialize(Object data) {
        return Json.write(data);
    }

    @Override
    public <T> T deserialize(Class<T> type, byte[] bytes) {
        try {
            return Json.mapper().readValue(bytes, type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
