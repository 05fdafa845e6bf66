@NullMarked
package dev.arbor.studio.definitions;

import org.jspecify.annotations.NullMarked;
