import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { TaskGroup } from "../../src/domain/task-group.js";

describe("TaskGroup", () => {
  it("drains what runs, those started meanwhile too, and hands failures to onError", async () => {
    const failures: unknown[] = [];
    const group = new TaskGroup((error) => failures.push(error));
    const done: string[] = [];
    group.track(sleep(10).then(() => done.push("first")));
    group.track(
      sleep(5).then(() => {
        group.track(sleep(20).then(() => done.push("started while draining")));
        throw new Error("boom");
      }),
    );
    expect(group.size).toBe(2);
    await group.drain();
    expect(done).toEqual(["first", "started while draining"]);
    expect(failures).toEqual([new Error("boom")]);
    expect(group.size).toBe(0);
  });
});
