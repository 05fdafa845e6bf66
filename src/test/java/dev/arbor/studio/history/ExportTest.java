package dev.arbor.studio.history;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExportTest {
    @Test
    void csvCellsAreQuotedAndFormulasDefused() {
        assertThat(Export.cell("plain")).isEqualTo("plain");
        assertThat(Export.cell("a,b")).isEqualTo("\"a,b\"");
        assertThat(Export.cell("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
        assertThat(Export.cell("=HYPERLINK(\"x\")")).isEqualTo("\"'=HYPERLINK(\"\"x\"\")\"");
        assertThat(Export.cell("@SUM(A1)")).isEqualTo("'@SUM(A1)");
        assertThat(Export.cell("-0.5")).isEqualTo("-0.5");
        assertThat(Export.cell("two\nlines")).isEqualTo("\"two\nlines\"");
    }
}
