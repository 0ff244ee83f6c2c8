/**
 * Real ClickHouse servers for the tests and the benchmark: `clickhouse-server` processes on
 * 127.0.0.1, each with its own ports and temp directory, forming one cluster (`loopscope_test`,
 * a shard per server, no replicas) whose first server is the entry the Distributed tables live
 * on. Stopped by their process ids. Where `clickhouse-server` is missing, `startClickHouseCluster`
 * fails saying how to install it: the tests that need it fail rather than skip.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClickHouseClient } from '../../src-main/clickhouse/clickhouseClient';
import { distributedSchema, shardSchema } from '../../src-main/clickhouse/clickhouseSchema';

export const clickHouseServerPath = process.env['LOOPSCOPE_CLICKHOUSE_SERVER'] ?? '/usr/sbin/clickhouse-server';
export const testClusterName = 'loopscope_test';

export interface ClickHouseServer {
  httpUrl: string;
  tcpPort: number;
  pid: number;
  directory: string;
}

export interface ClickHouseCluster {
  servers: ClickHouseServer[];
  /** The entry server's HTTP URL: where the Distributed tables are. */
  url: string;
  clusterName: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function serverConfig(directory: string, ports: { http: number; tcp: number; interserver: number }, shardTcpPorts: readonly number[]): string {
  const shards = shardTcpPorts.map((port) => `<shard><replica><host>127.0.0.1</host><port>${port}</port></replica></shard>`).join('');
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${directory}/server.log</log><errorlog>${directory}/error.log</errorlog><size>10M</size><count>1</count></logger>
  <http_port>${ports.http}</http_port>
  <tcp_port>${ports.tcp}</tcp_port>
  <interserver_http_port>${ports.interserver}</interserver_http_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${directory}/data/</path>
  <tmp_path>${directory}/tmp/</tmp_path>
  <user_files_path>${directory}/user_files/</user_files_path>
  <format_schema_path>${directory}/format_schemas/</format_schema_path>
  <mark_cache_size>268435456</mark_cache_size>
  <max_concurrent_queries>100</max_concurrent_queries>
  <users_config>${directory}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <remote_servers><${testClusterName}>${shards}</${testClusterName}></remote_servers>
</yandex>
`;
}

const usersConfig = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;

async function waitForServer(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new ServerStartError(`clickhouse-server exited with ${child.exitCode} before answering:\n${output()}`);
    try {
      const response = await fetch(`${url}/ping`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`clickhouse-server at ${url} did not answer within 60 s:\n${output()}`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const killed = setTimeout(() => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }, 15_000);
  await exited;
  clearTimeout(killed);
}

/**
 * Starts `shards` servers forming one cluster and creates the library's tables in `database` (local
 * tables on each, Distributed ones on the first). A free port is only free when it was looked at: a
 * server that cannot start (another process took one of its ports meanwhile, as the tests running
 * side by side do) is tried again on other ports, twice.
 */
export async function startClickHouseCluster(options: { shards: number; database: string }): Promise<ClickHouseCluster> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startClusterOnce(options);
    } catch (error) {
      if (attempt === 3 || !(error instanceof ServerStartError)) throw error;
    }
  }
}

/** A server exited before it answered. */
class ServerStartError extends Error {}

async function startClusterOnce(options: { shards: number; database: string }): Promise<ClickHouseCluster> {
  if (!existsSync(clickHouseServerPath)) {
    throw new Error(
      `clickhouse-server is not at ${clickHouseServerPath}: the ClickHouse tests start real servers. Install it with "apt-get install -y clickhouse-server" (or set LOOPSCOPE_CLICKHOUSE_SERVER).`,
    );
  }
  const plans: { http: number; tcp: number; interserver: number; directory: string }[] = [];
  for (let shard = 0; shard < options.shards; shard += 1) {
    plans.push({
      http: await freePort(),
      tcp: await freePort(),
      interserver: await freePort(),
      directory: mkdtempSync(join(tmpdir(), 'loopscope-clickhouse-')),
    });
  }
  const children: ChildProcess[] = [];
  const servers: ClickHouseServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(children.map(stopProcess));
    for (const plan of plans) rmSync(plan.directory, { recursive: true, force: true });
  };
  try {
    for (const plan of plans) {
      mkdirSync(join(plan.directory, 'data'), { recursive: true });
      writeFileSync(join(plan.directory, 'users.xml'), usersConfig);
      writeFileSync(
        join(plan.directory, 'config.xml'),
        serverConfig(
          plan.directory,
          plan,
          plans.map((other) => other.tcp),
        ),
      );
      const child = spawn(clickHouseServerPath, [`--config-file=${join(plan.directory, 'config.xml')}`], {
        cwd: plan.directory,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      const httpUrl = `http://127.0.0.1:${plan.http}`;
      await waitForServer(httpUrl, child, () => output);
      if (child.pid === undefined) throw new Error('clickhouse-server started without a process id');
      servers.push({ httpUrl, tcpPort: plan.tcp, pid: child.pid, directory: plan.directory });
    }
    for (const server of servers) {
      const client = new ClickHouseClient({ url: server.httpUrl });
      for (const statement of shardSchema(options.database)) await client.execute(statement);
    }
    const entry = servers[0];
    if (entry === undefined) throw new Error('a cluster needs at least one shard');
    const client = new ClickHouseClient({ url: entry.httpUrl });
    for (const statement of distributedSchema(options.database, testClusterName)) await client.execute(statement);
    return { servers, url: entry.httpUrl, clusterName: testClusterName, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
