"""arena_gen/envs/trading/agents"""
