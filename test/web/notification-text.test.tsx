// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { MantineProvider } from "@mantine/core";
import { afterEach, describe, expect, it } from "vitest";
import { Pager } from "../../src/web/components/Pager.tsx";
import { viewOf, type NotificationItem } from "../../src/web/pages/notifications/notification-text.ts";

afterEach(cleanup);

const base = { id: 1, read: false, createdAt: "2026-01-01T00:00:00Z", entityType: "event", entityUuid: null };

describe("notification rows", () => {
  it("say what happened, lead to the hunt or the event, and offer unfollow only for followed entities", () => {
    const hunt = viewOf({ ...base, type: "hunt.result.changed", payload: { __typename: "HuntNotificationPayload", huntId: 7, huntName: "sha256", total: 8, previousTotal: 3, newHitCount: 5 } } as NotificationItem);
    expect(hunt).toEqual({ text: 'Hunt "sha256": 3 → 8 matches, 5 new', href: "/hunts/7", canUnfollow: false });
    const first = viewOf({ ...base, type: "hunt.result.first_run", payload: { __typename: "HuntNotificationPayload", huntId: 7, huntName: "x", total: 3, previousTotal: null, newHitCount: 3 } } as NotificationItem);
    expect(first.text).toBe('Hunt "x": 3 matches, 3 new');
    const attr = viewOf({
      ...base,
      type: "event.attribute.created",
      payload: { __typename: "AttributeNotificationPayload", attributeType: "domain", attributeValue: "evil.example", eventTitle: "<b>t</b>", eventUuid: "e1" },
    } as NotificationItem);
    expect(attr).toEqual({ text: 'domain evil.example in "<b>t</b>"', href: "/events/e1", canUnfollow: true });
    const corr = viewOf({
      ...base,
      type: "attribute.correlation.created",
      payload: { __typename: "CorrelationNotificationPayload", value: "1.2.3.4", targetAttributeType: "ip-dst", targetAttributeValue: "1.2.3.4", targetEventUuid: "e2" },
    } as NotificationItem);
    expect(corr.href).toBe("/events/e2");
  });
});

describe("the pager", () => {
  it("names its buttons, says where the user is, and stops at both ends", () => {
    const pages: number[] = [];
    render(
      <MantineProvider>
        <Pager page={1} pages={3} total={42} noun="runs" nameButtons onChange={(p) => pages.push(p)} />
      </MantineProvider>,
    );
    expect(screen.getByText("Page 1 of 3 · 42 runs")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Previous page of runs" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Next page of runs" }));
    expect(pages).toEqual([2]);
  });
});
