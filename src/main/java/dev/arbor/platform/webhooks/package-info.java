@NullMarked
package dev.arbor.platform.webhooks;

import org.jspecify.annotations.NullMarked;
