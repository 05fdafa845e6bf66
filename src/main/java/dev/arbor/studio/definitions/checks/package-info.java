@NullMarked
package dev.arbor.studio.definitions.checks;

import org.jspecify.annotations.NullMarked;
