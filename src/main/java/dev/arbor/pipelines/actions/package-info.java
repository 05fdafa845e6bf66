@NullMarked
package dev.arbor.pipelines.actions;

import org.jspecify.annotations.NullMarked;
