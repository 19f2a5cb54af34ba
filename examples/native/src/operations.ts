import { gql, type TypedDocumentNode } from '@apollo/client';

export interface PaymentStatus {
  id: string;
  status: string;
  final: boolean;
}

export const SESSION: TypedDocumentNode<{ bankConnection: { connected: boolean; mfa: string } }> = gql`
  query Session {
    bankConnection {
      connected
      mfa
    }
  }
`;

export const START_BANK_CONNECTION: TypedDocumentNode<
  { startBankConnection: { url: string; expiresAt: string } },
  { returnUri: string; state: string }
> = gql`
  mutation StartBankConnection($returnUri: String!, $state: String!) {
    startBankConnection(returnUri: $returnUri, state: $state) {
      url
      expiresAt
    }
  }
`;

export interface Account {
  id: string;
  name: string;
  status: string;
  attributes: string[];
}

export const ME_AND_ACCOUNTS: TypedDocumentNode<{
  me: { id: string; preferredName: string | null };
  accounts: Account[];
}> = gql`
  query MeAndAccounts {
    me {
      id
      preferredName
    }
    accounts {
      id
      name
      status
      attributes
    }
  }
`;

export const CREATE_PAYMENT: TypedDocumentNode<
  { createPayment: { idempotencyKey: string; replayed: boolean; payment: PaymentStatus } },
  {
    input: { from: string; to: { name: string; accountNumber: string }; amount: number };
    idempotencyKey: string;
  }
> = gql`
  mutation CreatePayment($input: CreatePaymentInput!, $idempotencyKey: String!) {
    createPayment(input: $input, idempotencyKey: $idempotencyKey) {
      idempotencyKey
      replayed
      payment {
        id
        status
        final
      }
    }
  }
`;

export const PAYMENT_UPDATED: TypedDocumentNode<{
  paymentUpdated: { paymentId: string | null; cursor: string; payment: PaymentStatus | null };
}> = gql`
  subscription PaymentUpdated {
    paymentUpdated {
      paymentId
      cursor
      payment {
        id
        status
        final
      }
    }
  }
`;
