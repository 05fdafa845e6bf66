@NullMarked
package dev.arbor.pipelines.definitions;

import org.jspecify.annotations.NullMarked;
