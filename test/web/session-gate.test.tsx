// @vitest-environment happy-dom
import { cleanup, render, screen } from "@testing-library/react";
import { MantineProvider } from "@mantine/core";
import { afterEach, describe, expect, it } from "vitest";
import { SignInPage } from "../../src/web/pages/sign-in/SignInPage.tsx";
import { describeNotificationType } from "../../src/web/app/NotificationBell.tsx";

afterEach(cleanup);

describe("web components", () => {
  it("shows why the user is back at sign-in, as a status message", () => {
    render(
      <MantineProvider>
        <SignInPage notice="Your session has ended. Sign in again to continue." />
      </MantineProvider>,
    );
    expect(screen.getByRole("status").textContent).toContain("Your session has ended");
    expect(screen.getByRole("button", { name: "Sign in" })).toBeTruthy();
  });

  it("names notification types in words", () => {
    expect(describeNotificationType("hunt.result.changed")).toBe("Hunt result changed");
    expect(describeNotificationType("attribute.sighting.created")).toBe("Attribute sighting created");
  });
});
