@NullMarked
package dev.arbor.pipelines.schedules;

import org.jspecify.annotations.NullMarked;
