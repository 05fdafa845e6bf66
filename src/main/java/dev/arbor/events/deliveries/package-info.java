@NullMarked
package dev.arbor.events.deliveries;

import org.jspecify.annotations.NullMarked;
