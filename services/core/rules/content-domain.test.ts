import { expect, it } from 'vitest';
import { contentDomainProblem } from './content-domain.js';

it("refuses content origins on the platform's own registrable domain", () => {
  expect(contentDomainProblem('https://app.example.com', 'https://{slug}.rooms.example.com')).toMatch(/registrable domain example\.com/);
  expect(contentDomainProblem('https://example.com', 'https://{slug}.example.com')).toMatch(/registrable domain/);
  expect(contentDomainProblem('https://app.example.co.uk', 'https://{slug}.demos.example.co.uk')).toMatch(/example\.co\.uk/);
});

it('takes content origins on a domain of their own, or directly under a public suffix', () => {
  expect(contentDomainProblem('https://app.example.com', 'https://{slug}.example-rooms.com')).toBeNull();
  // github.io is in the list's private section: each name under it is a site of its own.
  expect(contentDomainProblem('https://app.github.io', 'https://{slug}.github.io')).toBeNull();
  expect(contentDomainProblem('http://127.0.0.1:8080', 'http://{slug}.rooms.localhost:8080')).toBeNull();
});

it('wants {slug} in the host', () => {
  expect(contentDomainProblem('https://app.example.com', 'https://rooms.example-rooms.com')).toMatch(/\{slug\}/);
  expect(contentDomainProblem('https://app.example.com', 'https://rooms.example-rooms.com/{slug}')).toMatch(/host, not its path/);
});

it('holds for the shipped Kubernetes config', async () => {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(new URL('../../../infra/k8s/config.yaml', import.meta.url), 'utf8');
  const value = (name: string) => new RegExp(`^\\s+${name}:\\s*(\\S+)`, 'm').exec(text)![1];
  expect(contentDomainProblem(value('PUBLIC_URL'), value('CONTENT_ORIGIN'))).toBeNull();
});
