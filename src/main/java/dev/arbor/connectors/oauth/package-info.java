@NullMarked
package dev.arbor.connectors.oauth;

import org.jspecify.annotations.NullMarked;
