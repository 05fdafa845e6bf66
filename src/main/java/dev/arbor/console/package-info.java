@NullMarked
package dev.arbor.console;

import org.jspecify.annotations.NullMarked;
