@NullMarked
package dev.arbor.notifications;

import org.jspecify.annotations.NullMarked;
