// Values shared by the test configuration (Node) and the tests (workerd).
export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789";
