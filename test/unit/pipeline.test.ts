import { describe, expect, it } from "vitest";
import { pipelined } from "../../src/platform/pipeline.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("pipelined", () => {
  it("prepares the next item while the current one is consumed, one ahead, consuming in order", async () => {
    const log: string[] = [];
    await pipelined(
      ["a", "b", "c"],
      async (item, i) => {
        log.push(`prepare ${item}${i}`);
        await tick();
        log.push(`prepared ${item}`);
        return item.toUpperCase();
      },
      async (prepared, item, i) => {
        log.push(`consume ${prepared} ${item}${i}`);
        await tick();
        await tick();
        log.push(`consumed ${prepared}`);
      },
    );
    expect(log).toEqual([
      "prepare a0", "prepared a",
      "prepare b1", "consume A a0", "prepared b", "consumed A",
      "prepare c2", "consume B b1", "prepared c", "consumed B",
      "consume C c2", "consumed C",
    ]);
  });

  it("does nothing for no items", async () => {
    let calls = 0;
    await pipelined([], async () => calls++, async () => void calls++);
    expect(calls).toBe(0);
  });

  it("consumes the items before a failed preparation, then throws it", async () => {
    const consumed: number[] = [];
    const run = pipelined(
      [1, 2, 3],
      async (n) => {
        if (n === 2) throw new Error("prepare 2");
        return n;
      },
      async (n) => void consumed.push(n),
    );
    await expect(run).rejects.toThrow("prepare 2");
    expect(consumed).toEqual([1]);
  });

  it("a preparation failing while the item before it is still consumed is thrown in its turn, not as an unhandled rejection", async () => {
    const consumed: number[] = [];
    const run = pipelined(
      [1, 2, 3],
      async (n) => {
        if (n === 2) throw new Error("prepare 2");
        return n;
      },
      async (n) => {
        // Long enough for the rejection of item 2's preparation to be seen as unhandled, if it were.
        await new Promise((resolve) => setTimeout(resolve, 50));
        consumed.push(n);
      },
    );
    await expect(run).rejects.toThrow("prepare 2");
    expect(consumed).toEqual([1]);
  });

  it("throws a failed consumption once the overlapping preparation has settled, and prepares nothing more", async () => {
    const prepared: number[] = [];
    let settled = false;
    const run = pipelined(
      [1, 2, 3],
      async (n) => {
        prepared.push(n);
        await tick();
        if (n === 2) {
          settled = true;
          throw new Error("prepare 2 fails too");
        }
        return n;
      },
      async () => {
        throw new Error("consume fails");
      },
    );
    await expect(run).rejects.toThrow("consume fails");
    expect(settled).toBe(true);
    expect(prepared).toEqual([1, 2]);
  });
});
