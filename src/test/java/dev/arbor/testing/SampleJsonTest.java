package dev.arbor.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SampleJsonTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "{0} against {1}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            {"a":1}                          | {"a":1}                              | true
            {"a":1}                          | {"a":2}                              | false
            {"a":1}                          | {"a":1,"b":2}                        | false
            {"a":1,...}                      | {"a":1,"b":2}                        | true
            {"a":1,...}                      | {"b":2}                              | false
            {"id":"prj_..."}                 | {"id":"prj_01M8"}                    | true
            {"id":"prj_..."}                 | {"id":"tok_01M8"}                    | false
            {"name":"support"}               | {"name":"sales"}                     | false
            {"p":{"billing":1.0,"tech":0.0}} | {"p":{"billing":1,"tech":0}}         | true
            {"p":{"billing":0.97}}           | {"p":{"billing":1.0}}                | false
            {"created_at":1}                 | {"created_at":1795477978}            | true
            {"version":"0.1.0-SNAPSHOT"}     | {"version":"dev"}                    | true
            {"version":1}                    | {"version":2}                        | false
            {"data":[{"id":"x"}, ...]}       | {"data":[{"id":"x"},{"id":"y"}]}     | true
            {"data":[{"id":"x"}]}            | {"data":[{"id":"x"},{"id":"y"}]}     | false
            {"data":[...]}                   | {"data":[]}                          | true
            {"error":null,"act":true}        | {"error":null,"act":false}           | false
            {"x":{...}}                      | {"x":[1]}                            | false
            ...                              | [1,2]                                | true
            """)
    void aSampleFitsOnlyTheAnswersItDescribes(String sample, String actual, boolean fits) throws Exception {
        assertThat(SampleJson.parse(sample)
                        .mismatch(JSON.readTree(actual), "", "the answer")
                        .isEmpty())
                .isEqualTo(fits);
    }
}
