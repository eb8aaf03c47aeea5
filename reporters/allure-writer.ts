import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Writer } from 'allure-js-commons/sdk/reporter';
import { stringifyEnvInfo } from 'allure-js-commons/sdk/reporter';

type Result = Parameters<Writer['writeResult']>[0];
type Group = Parameters<Writer['writeGroup']>[0];
type EnvironmentInfo = Parameters<Writer['writeEnvironmentInfo']>[0];
type Categories = Parameters<Writer['writeCategoriesDefinitions']>[0];
type Globals = Parameters<Writer['writeGlobals']>[1];

/**
 * Allure's results written as its own FileSystemWriter writes them (each file complete or absent: written
 * aside, then renamed into place), without forcing each to disk (fsync). A run attaches every exchange to
 * its step, a file each: with an fsync apiece, a full run spent about 20 s of its 60 s of CPU, and more
 * of its wall time, waiting for the disk. Results are a report of the run, read after it: a crash of the
 * machine mid-run loses the run anyway.
 */
export class UnsyncedAllureWriter implements Writer {
  private made = false;

  constructor(private readonly resultsDir: string) {}

  private put(name: string, write: (file: string) => void): void {
    if (!this.made) {
      mkdirSync(this.resultsDir, { recursive: true });
      this.made = true;
    }
    const target = path.join(this.resultsDir, name);
    const aside = path.join(this.resultsDir, `.allure-write-${randomUUID()}.tmp`);
    write(aside);
    renameSync(aside, target);
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    this.put(distFileName, (file) => writeFileSync(file, content));
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    this.put(distFileName, (file) => copyFileSync(from, file));
  }

  writeEnvironmentInfo(info: EnvironmentInfo): void {
    this.put('environment.properties', (file) => writeFileSync(file, stringifyEnvInfo(info), 'utf8'));
  }

  writeCategoriesDefinitions(categories: Categories): void {
    this.put('categories.json', (file) => writeFileSync(file, JSON.stringify(categories), 'utf8'));
  }

  writeGroup(result: Group): void {
    this.put(`${result.uuid}-container.json`, (file) => writeFileSync(file, JSON.stringify(result), 'utf8'));
  }

  writeResult(result: Result): void {
    this.put(`${result.uuid}-result.json`, (file) => writeFileSync(file, JSON.stringify(result), 'utf8'));
  }

  writeGlobals(distFileName: string, info: Globals): void {
    this.put(distFileName, (file) => writeFileSync(file, JSON.stringify(info), 'utf8'));
  }
}
