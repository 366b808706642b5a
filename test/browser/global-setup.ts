// Runs once before the browser test files: finds (or inflates) Chromium, so no two files inflate it at once.
import type { TestProject } from "vitest/node";
import { type Chrome, findChrome } from "./chrome.ts";

declare module "vitest" {
  export interface ProvidedContext {
    chrome: Chrome;
  }
}

export default async function setup(project: TestProject) {
  project.provide("chrome", await findChrome());
}
