// @vitest-environment happy-dom
import { cleanup, render, screen } from "@testing-library/react";
import { MantineProvider } from "@mantine/core";
import { GraphQLError } from "graphql";
import { CombinedError } from "urql";
import { afterEach, describe, expect, it } from "vitest";
import { fieldErrors } from "../../src/web/lib/field-errors.ts";
import { RetentionBadge, type Retention } from "../../src/web/pages/events/RetentionBadge.tsx";
import { galaxyCluster } from "../../src/web/pages/events/event-labels.ts";
import { typesFor, type Catalogue } from "../../src/web/pages/events/catalogue.ts";

afterEach(cleanup);

const badge = (retention: Retention | null) =>
  render(
    <MantineProvider>
      <div data-testid="badge">
        <RetentionBadge retention={retention} />
      </div>
    </MantineProvider>,
  );

describe("the events pages' logic", () => {
  it("puts each of the API's 422 issues at its field, the first per field, list indexes skipped", () => {
    const error = new CombinedError({
      graphQLErrors: [
        new GraphQLError("invalid", {
          extensions: {
            status: 422,
            detail: [
              { loc: ["args", "input", "value"], msg: "Invalid sha256" },
              { loc: ["args", "input", "value"], msg: "second message, not shown" },
              { loc: ["args", "tags", "0"], msg: "too long" },
              { loc: ["body"], msg: "whole body" },
              { msg: "no location" },
            ],
          },
        }),
        new GraphQLError("Event not found", { extensions: { status: 404, detail: "Event not found" } }),
      ],
    });
    expect(fieldErrors(error)).toEqual({ value: "Invalid sha256", tags: "too long", body: "whole body" });
    expect(fieldErrors(undefined)).toEqual({});
    expect(fieldErrors(new CombinedError({ networkError: new Error("offline") }))).toEqual({});
  });

  it("shows the retention badge exactly as the API gives it, and nothing without one", () => {
    badge(null);
    expect(screen.getByTestId("badge").textContent).toBe("");
    cleanup();
    badge({ status: "EXPIRED", expiresInDays: -3 });
    expect(screen.getByTestId("badge").textContent).toBe("expired");
    cleanup();
    badge({ status: "EXPIRING", expiresInDays: 12 });
    expect(screen.getByTestId("badge").textContent).toBe("expires in 12d");
  });

  it("reads galaxy cluster tags and nothing else", () => {
    expect(galaxyCluster('misp-galaxy:mitre-attack-pattern="Spearphishing Link - T1192"')).toEqual({ galaxy: "mitre-attack-pattern", value: "Spearphishing Link - T1192" });
    expect(galaxyCluster('misp-galaxy:threat-actor="Say "hi""')).toEqual({ galaxy: "threat-actor", value: 'Say "hi"' });
    expect(galaxyCluster("tlp:white")).toBeNull();
    expect(galaxyCluster('circl:incident-classification="malware"')).toBeNull();
    expect(galaxyCluster("misp-galaxy:no-value")).toBeNull();
  });

  it("offers the types of the chosen category, every type without one", () => {
    const catalogue: Catalogue = {
      categories: [
        { name: "Network activity", types: ["ip-dst", "domain"] },
        { name: "Payload delivery", types: ["sha256", "domain"] },
      ],
      types: ["ip-dst", "domain", "sha256"].map((name) => ({ name, defaultCategory: "Network activity", toIds: true })),
    };
    expect(typesFor(catalogue, "Payload delivery")).toEqual(["sha256", "domain"]);
    expect(typesFor(catalogue, null)).toEqual(["ip-dst", "domain", "sha256"]);
    expect(typesFor(catalogue, "No such category")).toEqual([]);
  });
});
