/** The four tables, built from the shared definitions with the stack's durability settings. */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLES, type IndexDefinition, type KeyAttribute, type TableDefinition } from '../../shared/store/tables';

const attr = (a: KeyAttribute): dynamodb.Attribute => ({
  name: a.name,
  type: a.type === 'S' ? dynamodb.AttributeType.STRING : dynamodb.AttributeType.NUMBER,
});

function projection(p: IndexDefinition['projection']): { projectionType: dynamodb.ProjectionType; nonKeyAttributes?: string[] } {
  if (p === 'ALL') return { projectionType: dynamodb.ProjectionType.ALL };
  if (p === 'KEYS_ONLY') return { projectionType: dynamodb.ProjectionType.KEYS_ONLY };
  return { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...p] };
}

export type ServiceTables = Record<TableDefinition['id'], dynamodb.TableV2>;

export class Tables extends Construct {
  readonly tables: ServiceTables;

  constructor(scope: Construct, id: string, props: { namePrefix: string }) {
    super(scope, id);
    const build = (def: TableDefinition) =>
      new dynamodb.TableV2(this, def.id, {
        tableName: `${props.namePrefix}${def.name}`,
        partitionKey: attr(def.partitionKey),
        sortKey: attr(def.sortKey),
        billing: dynamodb.Billing.onDemand(),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: dynamodb.TableEncryptionV2.awsManagedKey(),
        deletionProtection: true,
        removalPolicy: RemovalPolicy.RETAIN,
        dynamoStream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
        ...(def.ttlAttribute ? { timeToLiveAttribute: def.ttlAttribute } : {}),
        localSecondaryIndexes: def.localIndexes.map((i) => ({
          indexName: i.name,
          sortKey: attr(i.sortKey!),
          ...projection(i.projection),
        })),
        globalSecondaryIndexes: def.globalIndexes.map((i) => ({
          indexName: i.name,
          partitionKey: attr(i.partitionKey),
          ...(i.sortKey ? { sortKey: attr(i.sortKey) } : {}),
          ...projection(i.projection),
        })),
      });
    this.tables = Object.fromEntries(TABLES.map((def) => [def.id, build(def)])) as ServiceTables;
  }
}
