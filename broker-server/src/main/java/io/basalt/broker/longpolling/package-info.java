/**
 * Long polling: pulls that find nothing new wait in {@link io.basalt.broker.longpolling.PullRequestHoldService}
 * until a matching message is dispatched to their queue or their suspend timeout passes.
 */
package io.basalt.broker.longpolling;
