@NullMarked
package dev.arbor.connectors.gateways;

import org.jspecify.annotations.NullMarked;
