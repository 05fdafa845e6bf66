@NullMarked
package dev.arbor.platform.actions;

import org.jspecify.annotations.NullMarked;
