"""arena_gen/envs/lights/agents"""
