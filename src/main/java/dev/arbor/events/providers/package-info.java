@NullMarked
package dev.arbor.events.providers;

import org.jspecify.annotations.NullMarked;
