/** Wire shapes of the platform, named as the specification names them. */

export type Direction = 'DEBIT' | 'CREDIT';

export interface PlatformEnrichmentQuery {
  id?: string;
  description: string;
  _connection?: string;
  amount?: number;
  direction?: Direction;
}

export interface PlatformGroup {
  _id: string;
  name: string;
}

export interface PlatformCategory {
  _id: string;
  name: string;
  groups: Record<string, PlatformGroup>;
}

export interface PlatformMerchant {
  _id?: string;
  name?: string;
  logo?: string;
  website?: string;
}

export interface PlatformEnrichmentResult {
  confidence: number;
  category: PlatformCategory;
  merchant?: PlatformMerchant;
}

export interface PlatformEnrichmentItem {
  id?: string;
  query: string;
  results: PlatformEnrichmentResult[];
}

export interface PlatformUser {
  _id: string;
  email?: string;
  preferred_name?: string;
  access_granted_at?: string;
}

export interface PlatformTokenGrant {
  access_token: string;
  token_type: string;
  scope?: string;
}
